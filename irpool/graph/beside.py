"""lxml work done on a second thread while the main thread reads the layers in Python."""

from __future__ import annotations

import threading

from lxml import etree

from irpool.diagnostics import Collector
from irpool.parse.schema import StructureCheck

# Below this many layers, starting and joining the thread costs more than the work it
# overlaps (2026-12-07, AMD EPYC family 25 model 1, quiet: irpool.load of a 3-layer file
# 1.34 ms on the calling thread, 1.75 ms with the thread; 9 layers 4.1 and 5.0 ms; 24 layers
# 8.8 and 9.3 ms; on a loaded host the thread costs more).
THREADED_LAYERS = 16


class Beside:
    """lxml work that releases the GIL, done on a second thread while the main thread reads
    in Python: serializing <layers> (which the main thread reads the layers from, unless
    they were read from the source text: `serialize`), then the schema check. Both only
    read the tree. When the schema check must write to the tree, both run at once on the
    calling thread."""

    def __init__(
        self, container: etree._Element | None, structure: StructureCheck, serialize: bool = True
    ) -> None:
        self._container = container if serialize else None
        self._structure = structure
        self._text: str | None = None
        self._error: BaseException | None = None
        self._serialized = threading.Event()
        self._thread: threading.Thread | None = None
        small = container is None or len(container) < THREADED_LAYERS
        if structure.runs_beside and not small:
            self._thread = threading.Thread(target=self._work, name="irpool-beside")
            self._thread.start()
        else:
            structure.run()
            self._serialize()

    def _work(self) -> None:
        self._serialize()
        self._structure.run()

    def _serialize(self) -> None:
        try:
            if self._container is not None:
                # As str: lxml writes that faster than bytes, and the reader reads no bytes.
                self._text = etree.tostring(self._container, with_tail=False, encoding="unicode")
        except BaseException as error:  # raised again on the main thread
            self._error = error
        finally:
            self._serialized.set()

    def layers_text(self) -> str | None:
        """The serialization of <layers> (None without one)."""
        self._serialized.wait()
        if self._error is not None:
            raise self._error
        return self._text

    def finish(self, sink: Collector) -> None:
        """Wait for the schema check and report what it found."""
        if self._thread is not None:
            self._thread.join()
        self._structure.report(sink)
