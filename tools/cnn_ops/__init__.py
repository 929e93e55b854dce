"""The sections of tools/measure_cnn_ops.py: one module per topic, each returning its Markdown
lines."""
