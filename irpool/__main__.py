from irpool.cli import main

main()
