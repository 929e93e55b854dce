"""The rule catalog: the one place that names every rule irpool can report.

`runtime` says what OpenVINO 2026.4 itself does with such a file: it `rejects` it (read or
compile fails), `reinterprets` it (loads, but runs something other than what is written),
`ignores` it (loads and runs as written; the text is noise or an unchecked claim), or
`crashes` (the CPU plugin aborts compiling it), `fails` (it compiles, but the CPU plugin
fails at inference), `sometimes` (the CPU plugin crashes in some runs, not in every one), or
`extension` (it reads the file only with an extension library loaded, openvino_tokenizers').
Errors whose runtime is not `rejects` are irpool's strictness rules: the file loads, but does
not say exactly what runs.

Each rule also carries its documentation (`doc`, a `wrong` and a `right` IR snippet, and what
`--fix` does, if anything), so `irpool rule CODE`, the SARIF rule table and the docs are all
read from here and cannot drift from the rule itself.

Checks report a rule by its constant (`sink.add(DECLARED_DIM_MISMATCH, ...)`), imported from
here, never by a literal code. The documentation stays in this one catalog rather than beside
each check (yamllint's habit): here a rule is not one module's check (IR211 is reported by
the XML reader, the attribute checker and the shape checker, and the graph reader reports
many rules), and `irpool rules`, config selectors and SARIF need the whole catalog without
importing every check. Going to the definition of a constant lands beside its rule's entry.

To add a rule: its constant below (the rule's name in upper snake case, in code order), its
entry in `_RULES`, a fixture in tests/rules/, then `python tools/gen_rule_docs.py`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, NewType


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}

Runtime = Literal[
    "rejects", "reinterprets", "ignores", "crashes", "fails", "sometimes", "extension"
]
# Where the CPU plugin must fail a file it reads for each CPU claim to hold, by the stage that
# fails: "compile", "infer", "crash" (the process dies), "timeout"; None: it runs.
CPU_FAILURE_STAGES: dict[Runtime, frozenset[str | None]] = {
    "crashes": frozenset({"compile", "crash", "timeout"}),
    "fails": frozenset({"infer", "crash", "timeout"}),
    "sometimes": frozenset({None, "compile", "infer", "crash", "timeout"}),  # some runs only
}

# A rule code. Checks name it by its constant below, never by a literal "IR301": a misspelt
# constant fails when the module is imported, and mypy refuses a plain str where a Code goes.
# Each constant is its rule's name in upper snake case (tests/test_rules.py checks both ways).
Code = NewType("Code", str)

FILE_UNREADABLE = Code("IR100")
XML_SYNTAX = Code("IR101")
UNSAFE_XML = Code("IR102")
ROOT_NOT_NET = Code("IR103")
UNSUPPORTED_IR_VERSION = Code("IR104")
IR_STRUCTURE = Code("IR105")
DUPLICATE_LAYER_ID = Code("IR106")
DUPLICATE_PORT_ID = Code("IR107")
NO_LAYERS = Code("IR108")
MISSING_PRECISION = Code("IR109")
INVALID_PRECISION = Code("IR110")
INVALID_DIM = Code("IR111")
REINTERPRETED_DIM = Code("IR112")
NON_CANONICAL_DIM = Code("IR113")
UNSUPPORTED_XML = Code("IR114")
UNKNOWN_ELEMENT = Code("IR115")
UNESCAPED_MARKUP = Code("IR116")
UNUSED_SUPPRESSION = Code("IR117")
DROPPED_SECTION = Code("IR118")
EMPTY_REPEATED_SECTION = Code("IR119")
UNSUPPORTED_OPSET = Code("IR201")
UNCHECKED_OP = Code("IR202")
MISSING_ATTRIBUTE = Code("IR203")
INVALID_ATTRIBUTE_VALUE = Code("IR204")
REINTERPRETED_ATTRIBUTE_VALUE = Code("IR205")
ATTRIBUTE_OUT_OF_RANGE = Code("IR206")
ATTRIBUTE_LENGTH_MISMATCH = Code("IR207")
ATTRIBUTE_VERSION_MISMATCH = Code("IR208")
MISSPELLED_ATTRIBUTE = Code("IR209")
UNKNOWN_ATTRIBUTE = Code("IR210")
NON_CANONICAL_SPELLING = Code("IR211")
IGNORED_ATTRIBUTE = Code("IR212")
OVERWRITTEN_PADS = Code("IR213")
MISSING_MANDATORY_ATTRIBUTE = Code("IR215")
UNKNOWN_OP_TYPE = Code("IR216")
INFERENCE_FAILURE = Code("IR217")
UNKNOWN_VALUES = Code("IR218")
FAKE_QUANTIZE_FEW_LEVELS = Code("IR221")
FAKE_QUANTIZE_CROSSED_RANGE = Code("IR222")
DETECTION_OUTPUT_NO_KEEP_TOP_K = Code("IR223")
DECLARED_DIM_FROM_SYMBOLS = Code("IR224")
EXTENSION_OP = Code("IR229")
OLDER_RELEASE_CANNOT_READ = Code("IR230")
DECLARED_DIM_MISMATCH = Code("IR301")
DECLARED_RANK_MISMATCH = Code("IR302")
SHAPE_INFERENCE_FAILED = Code("IR303")
INVALID_OUTPUT_SIZE = Code("IR304")
DECLARED_PRECISION_MISMATCH = Code("IR305")
IGNORED_AXES = Code("IR306")
RESHAPE_ELEMENT_COUNT = Code("IR307")
REPEATED_REDUCE_AXES = Code("IR308")
CPU_MISREWRITES_REDUCE = Code("IR309")
CPU_MISREADS_PAD_VALUE = Code("IR310")
RESHAPE_REFUSED = Code("IR311")
WEIGHTS_UNAVAILABLE = Code("IR401")
CONST_OUT_OF_BOUNDS = Code("IR402")
CONST_SIZE_TOO_SMALL = Code("IR403")
CONST_SIZE_TOO_LARGE = Code("IR404")
UNKNOWN_EDGE_LAYER = Code("IR501")
UNKNOWN_EDGE_PORT = Code("IR502")
INPUT_EDGE_COUNT = Code("IR503")
CYCLE = Code("IR504")
UNREACHABLE_LAYER = Code("IR505")
WRONG_PORT_COUNT = Code("IR506")
NO_RESULT = Code("IR507")
SHARED_TENSOR_NAME = Code("IR508")
V10_NAME_COLLISION = Code("IR509")
ASSIGN_WITHOUT_READ_VALUE = Code("IR510")
VARIABLE_TYPE_MISMATCH = Code("IR511")
VARIABLE_SHAPE_MISMATCH = Code("IR512")

# What OpenVINO reads but its CPU plugin cannot compile or run (irpool/cpu/refusals.py): one
# rule per cause. "IR214" and "compile-crash", once one rule for them all, select them all.
CPU_DYNAMIC_RANK_INPUT = Code("IR601")
CPU_UNCOMPILED_ELEMENT_TYPE = Code("IR602")
CPU_WRAPPED_STRIDE = Code("IR603")
CPU_POOLING_WITHOUT_DILATIONS = Code("IR604")
CPU_POOLING_INDEX_TYPE = Code("IR605")
CPU_WINDOW_IN_PADDING = Code("IR606")
CPU_EMPTY_REDUCE_AXES = Code("IR607")
CPU_MVN_AXES_OUT_OF_RANK = Code("IR608")
CPU_ROLL_SCALAR_SHIFT = Code("IR609")
CPU_PAD_CUTS_PAST_AXIS = Code("IR610")
CPU_SCATTER_UPDATES_RANK = Code("IR611")
CPU_TRANSPOSE_BYTE_ORDER = Code("IR612")
CPU_ATTENTION_MASK_KEYS = Code("IR613")
CPU_GATHER_RUN_TIME_AXIS = Code("IR614")
CPU_GATHER_NO_ELEMENTS = Code("IR615")
CPU_GATHER_UNIT_BATCH = Code("IR616")
CPU_BROADCAST_TARGET = Code("IR617")
CPU_BROADCAST_SCALAR_TO_EMPTY = Code("IR618")
CPU_MATMUL_MULTIPLY_FUSION = Code("IR619")
CPU_MATMUL_BATCHED_CONSTANT = Code("IR620")
CPU_SLICE_MINIMUM_STEP = Code("IR621")
CPU_CLAMP_FUSION_BOUNDS = Code("IR622")
CPU_INTERPOLATE_UNSUPPORTED = Code("IR623")
CPU_INTERPOLATE_PILLOW_AXES = Code("IR624")
CPU_INTERPOLATE_CUBIC_DEPTH = Code("IR625")
CPU_FAKE_QUANTIZE_STRIPPED_IDENTITY = Code("IR626")
CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST = Code("IR627")
CPU_FAKE_QUANTIZE_INTEGER_DATA = Code("IR628")
CPU_BACKPROP_ONE_GROUP = Code("IR629")
CPU_STRIDED_SLICE_SHRINK_OUT_OF_RANGE = Code("IR630")
CPU_BACKPROP_DYNAMIC_SHAPE = Code("IR631")
CPU_PRELU_SLOPE_SHAPE = Code("IR632")
CPU_GRID_SAMPLE_EMPTY_DATA = Code("IR633")
CPU_TILE_NEGATIVE_REPEAT = Code("IR635")
CPU_CUMSUM_AXIS = Code("IR636")
CPU_TOPK_K_RANGE = Code("IR637")
CPU_UNPAIRED_VARIABLE_LAYER = Code("IR638")
CPU_VARIABLE_ELEMENT_TYPE = Code("IR639")
CPU_VARIABLE_DYNAMIC_RANK = Code("IR640")
CPU_DETECTION_OUTPUT_DECREASED_BACKGROUND = Code("IR641")
CPU_DETECTION_OUTPUT_CLEARS_PAST_OUTPUT = Code("IR642")


# Keyword fields only: five positional strings in a row are easy to swap unnoticed.
@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    code: Code
    name: str
    severity: Severity
    runtime: Runtime
    summary: str
    # Documentation: what the rule checks, why it matters, how to fix it.
    doc: str = ""
    # The smallest IR (or other) text that triggers the rule, and the same text corrected.
    wrong: str = ""
    right: str = ""
    # What `irpool validate --fix` rewrites; empty when no fix is certain.
    fix: str = ""
    # A converter's habit, repeated layer after layer: the same finding on several layers
    # of a file is one diagnostic, which names them all (diagnostics.merge_repeats).
    repeats: bool = False

    @property
    def is_strictness(self) -> bool:
        """An error that OpenVINO itself would not raise at read time."""
        return self.severity is Severity.ERROR and self.runtime != "rejects"

    @property
    def fixable(self) -> bool:
        return bool(self.fix)


def _text(block: str) -> str:
    """Docs and snippets are written indented in this file; store them flush left."""
    return textwrap.dedent(block).strip("\n")


E, W, N = Severity.ERROR, Severity.WARNING, Severity.INFO

_RULES = (
    # IR1xx: the file, its XML and the IR skeleton
    Rule(
        code=FILE_UNREADABLE,
        name="file-unreadable",
        severity=E,
        runtime="rejects",
        summary="The file cannot be opened or read.",
        doc=_text("""
            The path names something irpool cannot read as a file: it is missing, a directory,
            a broken symbolic link, or unreadable for the current user. OpenVINO cannot read it
            either. Make the file a readable regular file (check permissions and links). A
            FIFO or a device is refused unread. A folder that a directory walk cannot list is
            reported the same way, on the folder, since the models in it go unchecked.
        """),
        wrong="$ chmod 000 model.xml && irpool validate model.xml",
        right="$ chmod 644 model.xml && irpool validate model.xml",
    ),
    Rule(
        code=XML_SYNTAX,
        name="xml-syntax",
        severity=E,
        runtime="rejects",
        summary="The file is not well-formed XML.",
        doc=_text("""
            The file is not well-formed XML (a mismatched end tag, a missing quote, a
            truncated file), so OpenVINO's XML reader refuses it. irpool reports every syntax
            error the parser recovers from, each at its own line and column. Fix the markup.
            (An unescaped `&` or `<`, which OpenVINO's lenient reader takes as written, is
            IR116.)
        """),
        wrong=_text("""
            <data kernel="2,2" strides="2,2" />
            </dta>
        """),
        right=_text("""
            <data kernel="2,2" strides="2,2" />
            </data>
        """),
    ),
    Rule(
        code=UNSAFE_XML,
        name="unsafe-xml",
        severity=E,
        runtime="reinterprets",
        summary="A DOCTYPE, entity declaration or external reference, which irpool never resolves.",
        doc=_text("""
            The file has a DOCTYPE, so it may declare entities or reference external files.
            IR never needs either, and expanding them is how XML bombs and file disclosure
            attacks work, so irpool stops reading. OpenVINO's reader skips the DOCTYPE and
            never expands an entity: it reads `name="&n;"` literally as the name `&n;`, where
            any XML tool reads the declared text, and it refuses a number written as an
            entity (`kernel="&k;"`). Delete the DOCTYPE and write every value literally.
        """),
        wrong=_text("""
            <!DOCTYPE net [<!ENTITY k "2,2">]>
            <net name="model" version="11">
        """),
        right=_text("""
            <net name="model" version="11">
        """),
    ),
    Rule(
        code=ROOT_NOT_NET,
        name="root-not-net",
        severity=E,
        runtime="rejects",
        summary="The root element is not <net>.",
        doc=_text("""
            An OpenVINO IR `.xml` has `<net>` as its root element; anything else is not IR
            (often another XML file caught by a glob). Point irpool at IR files only, for
            example with `files:` in a pre-commit hook, or fix the root element.
        """),
        wrong=_text("""
            <model name="model" version="11">
        """),
        right=_text("""
            <net name="model" version="11">
        """),
    ),
    Rule(
        code=UNSUPPORTED_IR_VERSION,
        name="unsupported-ir-version",
        severity=E,
        runtime="rejects",
        summary="The <net> version is missing or not 10 or 11.",
        doc=_text("""
            OpenVINO 2026.4 reads IR versions 10 and 11 only; a missing or other version is
            refused before any layer is read. Re-export the model with a current converter,
            which writes version 11.
        """),
        wrong=_text("""
            <net name="model" version="12">
        """),
        right=_text("""
            <net name="model" version="11">
        """),
    ),
    Rule(
        code=IR_STRUCTURE,
        name="ir-structure",
        severity=E,
        runtime="rejects",
        summary="An element or attribute breaks the IR structure (schemas/ir.xsd).",
        doc=_text("""
            The XML is well-formed but not shaped like IR: a required attribute is missing
            (a layer's `name`, an edge's `to-port`), or an element appears where the runtime
            does not look for it (an element IR does not define at all is only IR115). The
            structure irpool checks against is published as `schemas/ir.xsd`. Add the missing
            attribute or move the element.
        """),
        wrong=_text("""
            <layer id="1" type="AvgPool" version="opset1">
        """),
        right=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset1">
        """),
    ),
    Rule(
        code=DUPLICATE_LAYER_ID,
        name="duplicate-layer-id",
        severity=E,
        runtime="reinterprets",
        summary="Two layers share an id; OpenVINO keeps only the last one.",
        doc=_text("""
            Layer ids must be unique. When two layers share one, OpenVINO silently keeps the
            later layer and edges to that id reach it, so the earlier layer vanishes from the
            model that runs. Give every layer its own id and update the edges.
        """),
        wrong=_text("""
            <layer id="1" name="pool_a" type="AvgPool" version="opset1">...</layer>
            <layer id="1" name="pool_b" type="AvgPool" version="opset1">...</layer>
        """),
        right=_text("""
            <layer id="1" name="pool_a" type="AvgPool" version="opset1">...</layer>
            <layer id="2" name="pool_b" type="AvgPool" version="opset1">...</layer>
        """),
    ),
    Rule(
        code=DUPLICATE_PORT_ID,
        name="duplicate-port-id",
        severity=E,
        runtime="reinterprets",
        summary="Two ports of one layer share an id; edges can reach only the first.",
        doc=_text("""
            Port ids are unique within a layer (inputs and outputs together). With a duplicate,
            an edge naming that id reaches the first port, whatever the file meant: a
            MaxPool-8 whose indices port repeats the values port's id loads, compiles and
            runs with its values read where the edge may have meant the indices. OpenVINO
            refuses the file only when an edge then names an id no port has left (IR502).
            Number the ports of each layer uniquely.
        """),
        wrong=_text("""
            <output>
              <port id="1" precision="FP32"><dim>1</dim></port>
              <port id="1" precision="FP32"><dim>1</dim></port>
            </output>
        """),
        right=_text("""
            <output>
              <port id="1" precision="FP32"><dim>1</dim></port>
              <port id="2" precision="FP32"><dim>1</dim></port>
            </output>
        """),
    ),
    Rule(
        code=NO_LAYERS,
        name="no-layers",
        severity=E,
        runtime="ignores",
        summary="The model has no layers, so nothing to check or run.",
        doc=_text("""
            The model has no layers, so it has no inputs, no outputs and nothing to run or
            check. The file was probably truncated or written by a tool that failed;
            regenerate it.
        """),
        wrong=_text("""
            <net name="model" version="11"><layers/><edges/></net>
        """),
        right=_text("""
            <net name="model" version="11">
              <layers><layer id="0" name="input" type="Parameter" version="opset1">...</layer>
                ...</layers>
              <edges>...</edges>
            </net>
        """),
    ),
    Rule(
        code=MISSING_PRECISION,
        name="missing-precision",
        severity=E,
        runtime="rejects",
        summary="An output port has no precision.",
        doc=_text("""
            Every output port states the element type it produces in `precision`; OpenVINO
            refuses an output port without one. Add the precision the op produces (FP32 for
            an AvgPool on f32 data).
        """),
        wrong=_text("""
            <port id="1"><dim>1</dim><dim>3</dim><dim>16</dim><dim>16</dim></port>
        """),
        right=_text("""
            <port id="1" precision="FP32"><dim>1</dim><dim>3</dim><dim>16</dim><dim>16</dim></port>
        """),
    ),
    Rule(
        code=INVALID_PRECISION,
        name="invalid-precision",
        severity=E,
        runtime="rejects",
        summary="A port precision names no element type.",
        doc=_text("""
            An output port's `precision` must name an element type, in the IR spelling
            (FP32, FP16, I64, ...) or the short one (f32, f16, i64, ...). OpenVINO refuses any
            other name on an output port. Write the element type the port carries.
        """),
        wrong=_text("""
            <port id="1" precision="FLOAT">
        """),
        right=_text("""
            <port id="1" precision="FP32">
        """),
    ),
    Rule(
        code=INVALID_DIM,
        name="invalid-dim",
        severity=E,
        runtime="rejects",
        summary="A <dim> is not an integer >= -1, so OpenVINO refuses the file.",
        doc=_text("""
            A `<dim>` holds a non-negative integer, or -1 for a dimension that is not static.
            Text such as `?` or a value below -1 makes OpenVINO refuse the file. Write the
            number, or -1 for a dynamic dimension.
        """),
        wrong=_text("""
            <dim>?</dim>
        """),
        right=_text("""
            <dim>-1</dim>
        """),
    ),
    Rule(
        code=REINTERPRETED_DIM,
        name="reinterpreted-dim",
        severity=E,
        runtime="reinterprets",
        summary="A <dim> such as 1.5 or 1..10 that OpenVINO reads as a different number.",
        doc=_text("""
            OpenVINO reads a `<dim>` as the integer at the start of its text and ignores the
            rest, so `2.5` is read as 2 and `1..10` as 1: the file says something other than
            what runs (`4.0` or `4e0`, which still mean 4, are only IR113). Digits must be
            ASCII: `４` is refused (IR111). Write the integer (irpool's `--fix` writes the value
            shape inference gives, or the value the runtime reads).
        """),
        wrong=_text("""
            <dim>2.5</dim>
        """),
        right=_text("""
            <dim>2</dim>
        """),
        fix="rewrites the <dim> to the integer the runtime uses",
    ),
    Rule(
        code=NON_CANONICAL_DIM,
        name="non-canonical-dim",
        severity=W,
        runtime="ignores",
        summary=(
            "A <dim> with surrounding whitespace, a leading + or zero, or a decimal point (4.0)."
        ),
        doc=_text("""
            The `<dim>` means the number OpenVINO reads from it, but its serializer never
            writes whitespace, a `+` sign, leading zeros or a fraction that is zero (`4.0`,
            `4e0`), and other tools may read such text differently. Write the plain integer.
        """),
        wrong=_text("""
            <dim> 016 </dim>
        """),
        right=_text("""
            <dim>16</dim>
        """),
        fix="rewrites the <dim> as a plain integer",
    ),
    Rule(
        code=UNSUPPORTED_XML,
        name="unsupported-xml",
        severity=E,
        runtime="ignores",
        summary="XML that IR never contains and irpool does not read: a processing instruction, an "
        "encoding other than UTF-8 or latin-1, or a size beyond irpool's limits.",
        doc=_text("""
            OpenVINO writes IR as plain UTF-8 XML: no processing instructions, no other
            encodings, short values, shallow nesting. A linter that reads files from strangers
            bounds what it reads, so irpool refuses a file over 128 MiB, a tag or text over
            1 MiB, and nesting deeper than 256 elements. It also reports processing
            instructions (OpenVINO skips them; other tools may act on them) and any encoding but
            UTF-8 and latin-1 declared as "ISO-8859-1" or "latin1": OpenVINO's reader decodes
            every other one as UTF-8, so it and other XML readers would see different text.
            The limits are documented in docs/hardening.md. Write the file as OpenVINO's
            serializer does.
        """),
        wrong=_text("""
            <?xml version="1.0" encoding="windows-1252"?>
            <?xml-stylesheet href="http://example.com/ir.xsl"?>
            <net name="model" version="11">
        """),
        right=_text("""
            <?xml version="1.0"?>
            <net name="model" version="11">
        """),
    ),
    Rule(
        code=UNKNOWN_ELEMENT,
        name="unknown-element",
        severity=W,
        runtime="ignores",
        summary="An element IR does not define, which OpenVINO's reader skips.",
        doc=_text("""
            The element is not part of IR (a tool's own data, a leftover, or a misspelt or
            namespaced element such as `<Layer>` or `<ir:data>`). OpenVINO's reader walks only
            the elements it knows, so it skips this one and everything inside it. That is
            harmless unless the element was meant to be part of the model: a skipped layer
            shows up as edges to a missing layer (IR501). A known element in the wrong place,
            or repeated, is IR105. Remove the element, or spell it as IR does.
        """),
        wrong=_text("""
            <net name="model" version="11">
              <generator tool="exporter" />
              <layers>
        """),
        right=_text("""
            <net name="model" version="11">
              <rt_info><generator tool="exporter" /></rt_info>
              <layers>
        """),
    ),
    Rule(
        code=UNESCAPED_MARKUP,
        name="unescaped-markup",
        severity=E,
        runtime="ignores",
        summary=(
            "A bare & or < (or an undefined entity) that only OpenVINO's lenient reader accepts."
        ),
        doc=_text("""
            XML requires `&amp;` and `&lt;` for a literal `&` and `<`. OpenVINO's reader
            (pugixml) is lenient: it reads `name="conv & pool"` or an undefined `&x;` as
            written, so the model loads. But the file is not XML: irpool, lxml and every other
            XML tool refuse it, so it cannot be checked, diffed or converted. Escape the
            character.
        """),
        wrong=_text("""
            <layer id="1" name="conv & pool" type="AvgPool" version="opset1">
        """),
        right=_text("""
            <layer id="1" name="conv &amp; pool" type="AvgPool" version="opset1">
        """),
    ),
    Rule(
        code=UNUSED_SUPPRESSION,
        name="unused-suppression",
        severity=W,
        runtime="ignores",
        summary=(
            "An `irpool: ignore` comment that suppresses nothing, names no rule, or is malformed."
        ),
        doc=_text("""
            A comment `<!-- irpool: ignore IR213 -->` (codes separated by commas or spaces)
            silences those codes for one element and everything inside it: the element whose
            line it ends (after an end tag or right after a start tag), otherwise the next
            element beside it. Before `<layer>` it covers the whole layer, before a `<dim>` only
            that dim, before `<net>` the whole file. It is reported when one of its codes
            suppresses nothing there (the finding was fixed, or moved), when a code is not a
            rule, when no element follows it, or when it is not written as
            `irpool: ignore CODE[, CODE...]`. OpenVINO ignores comments, so nothing runs
            differently; the comment only misleads readers. Remove the stale code, or the
            comment (`--fix` deletes a comment none of whose codes is in use). IR117 itself is
            turned off with `ignore` in the configuration.
        """),
        wrong=_text("""
            <!-- irpool: ignore IR213, IR301 -->
            <layer id="1" name="pool" type="AvgPool" version="opset1">
                <!-- declared pads [0,1] are overwritten by same_upper: IR213 is reported,
                     but no dim differs, so IR301 suppresses nothing -->
        """),
        right=_text("""
            <!-- irpool: ignore IR213 -->
            <layer id="1" name="pool" type="AvgPool" version="opset1">
        """),
        fix="deletes a suppression all of whose codes are stale (one still in use is left to you)",
    ),
    Rule(
        code=DROPPED_SECTION,
        name="dropped-section",
        severity=E,
        runtime="reinterprets",
        summary="A second <layers>, <edges> or <rt_info> with content, which OpenVINO drops.",
        doc=_text("""
            OpenVINO's reader reads only the first `<layers>`, `<edges>` and `<rt_info>` of
            `<net>` and skips any later one whole, silently: the layers, edges or runtime
            info written there are not part of the model that runs (measured: edges split
            over two `<edges>` leave a Result unfed; a first empty `<layers>` loads a model of
            no ops). Merge the sections into one.
        """),
        wrong=_text("""
            <edges>
              <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
            </edges>
            <edges>
              <edge from-layer="1" from-port="1" to-layer="2" to-port="0" />
            </edges>
        """),
        right=_text("""
            <edges>
              <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
              <edge from-layer="1" from-port="1" to-layer="2" to-port="0" />
            </edges>
        """),
    ),
    Rule(
        code=EMPTY_REPEATED_SECTION,
        name="empty-repeated-section",
        severity=W,
        runtime="ignores",
        summary="A second, empty <layers>, <edges> or <rt_info>, which OpenVINO skips.",
        fix="deletes the empty section (one holding a comment is left to you)",
        doc=_text("""
            OpenVINO's reader reads only the first `<layers>`, `<edges>` and `<rt_info>` of
            `<net>` and skips any later one. This one is empty, so nothing is lost: the file
            runs as written, and the section is noise (an empty first one is not: the
            content after it is dropped, IR118). Remove it.
        """),
        wrong=_text("""
            <edges>
              <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
            </edges>
            <edges />
        """),
        right=_text("""
            <edges>
              <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
            </edges>
        """),
    ),
    # IR2xx: ops and attributes
    Rule(
        code=UNSUPPORTED_OPSET,
        name="unsupported-opset",
        severity=E,
        runtime="rejects",
        summary="The layer's version names no opset that has this op.",
        doc=_text("""
            A layer's `version` names the opset its op comes from. OpenVINO refuses an opset
            that does not exist or that has no op of this type (AvgPool is in opset1 to
            opset16, AdaptiveAvgPool in opset8 to opset16). Name an opset that has the op
            version you mean: opset1 for AvgPool-1, opset14 for AvgPool-14, opset16 for
            AvgPool-16. Ops irpool does not model get IR216 instead. A warning in a layer
            OpenVINO drops (IR505).
        """),
        wrong=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset17">
        """),
        right=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset16">
        """),
    ),
    Rule(
        code=UNCHECKED_OP,
        name="unchecked-op",
        severity=W,
        runtime="ignores",
        summary="An op type irpool does not model; its declared outputs are trusted.",
        doc=_text("""
            irpool models the ops that docs/ops/README.md lists only. For any other op
            type (one warning per type), irpool does not check attributes or infer shapes: it
            trusts the layer's declared output dims and keeps checking downstream. Nothing is wrong
            with the file; if the model is expected to contain such ops, ignore the rule in
            the configuration. A type that OpenVINO itself does not have in the layer's
            opset is IR216, an error.
        """),
        wrong=_text("""
            <layer id="1" name="erf" type="Erf" version="opset1">
        """),
        right=_text("""
            # pyproject.toml
            [tool.irpool]
            ignore = ["IR202"]
        """),
    ),
    Rule(
        code=MISSING_ATTRIBUTE,
        name="missing-attribute",
        severity=E,
        runtime="reinterprets",
        summary="An attribute the specification requires is missing; a default silently applies.",
        doc=_text("""
            The operation specification requires the attribute, but OpenVINO accepts the layer
            without it and silently applies a default (exclude-pad falls back to true, pads to
            zeros). A reader of the file cannot see what runs. Write the attribute with the
            value you mean. A warning in a layer OpenVINO drops (IR505).
        """),
        wrong=_text("""
            <data kernel="2,2" strides="2,2" pads_begin="0,0" pads_end="0,0" />
        """),
        right=_text("""
            <data kernel="2,2" strides="2,2" pads_begin="0,0" pads_end="0,0" exclude-pad="true" />
        """),
    ),
    Rule(
        code=INVALID_ATTRIBUTE_VALUE,
        name="invalid-attribute-value",
        severity=E,
        runtime="rejects",
        summary=(
            "An attribute value OpenVINO cannot parse or refuses (bad list, unknown enum, an enum "
            "value from a later op version, bad type)."
        ),
        doc=_text("""
            OpenVINO cannot parse or refuses the value: an enum outside its allowed values, an
            enum value that only a later op version has (`rounding_type="ceil_torch"` before
            AvgPool-14), a list that is not comma-separated integers, an element type it does
            not know. The model fails to load. Write one of the allowed values, or use the op
            version that has it.
        """),
        wrong=_text("""
            <data auto_pad="notset" kernel="2,2" strides="2,2" ... />
        """),
        right=_text("""
            <data auto_pad="explicit" kernel="2,2" strides="2,2" ... />
        """),
    ),
    Rule(
        code=REINTERPRETED_ATTRIBUTE_VALUE,
        name="reinterpreted-attribute-value",
        severity=E,
        runtime="reinterprets",
        summary=(
            "An attribute value OpenVINO reads as something else (3x as 3, -1 wrapped, yes "
            "ignored)."
        ),
        doc=_text("""
            OpenVINO accepts the value but reads it as something other than what is written:
            it stops at trailing junk (`3x` is 3; a float such as Clamp's `min="0x1"` is 0),
            wraps negative unsigned values around 2**64, and ignores a boolean it cannot read
            (`yes`), keeping the default. Write the value the way the runtime reads it.
        """),
        wrong=_text("""
            <data kernel="3x,3" exclude-pad="yes" strides="1,1" pads_begin="0,0" pads_end="0,0" />
        """),
        right=_text("""
            <data kernel="3,3" exclude-pad="true" strides="1,1" pads_begin="0,0" pads_end="0,0" />
        """),
        fix='writes the number a float attribute is read as (`min="0x1"` becomes `min="0"`)',
    ),
    Rule(
        code=ATTRIBUTE_OUT_OF_RANGE,
        name="attribute-out-of-range",
        severity=E,
        runtime="rejects",
        summary=(
            "An attribute value outside its allowed range (zero strides or dilations, Clamp's "
            "min above max)."
        ),
        doc=_text("""
            The value parses but is outside the range the op allows; a stride or dilation of
            0 makes OpenVINO's shape inference fail, and so does a Clamp whose min is above its
            max or NaN. Use values of at least 1, and min <= max.
        """),
        wrong=_text("""
            <data kernel="2,2" strides="0,2" pads_begin="0,0" pads_end="0,0" exclude-pad="true" />
        """),
        right=_text("""
            <data kernel="2,2" strides="1,2" pads_begin="0,0" pads_end="0,0" exclude-pad="true" />
        """),
    ),
    Rule(
        code=ATTRIBUTE_LENGTH_MISMATCH,
        name="attribute-length-mismatch",
        severity=E,
        runtime="rejects",
        summary="List attributes whose lengths disagree with each other or with the input rank.",
        doc=_text("""
            kernel, strides, pads_begin, pads_end and dilations each hold one value per spatial
            axis of the input (rank - 2). When the lengths disagree, OpenVINO's shape inference
            fails. Give every list one value per spatial axis. A warning in a layer OpenVINO
            drops (IR505).
        """),
        wrong=_text("""
            <!-- input [1,3,32] has one spatial axis -->
            <data kernel="2" strides="2,2" pads_begin="0" pads_end="0" exclude-pad="true" />
        """),
        right=_text("""
            <!-- input [1,3,32] has one spatial axis -->
            <data kernel="2" strides="2" pads_begin="0" pads_end="0" exclude-pad="true" />
        """),
    ),
    Rule(
        code=ATTRIBUTE_VERSION_MISMATCH,
        name="attribute-version-mismatch",
        severity=E,
        runtime="reinterprets",
        summary="An attribute or value that belongs to another version of the op.",
        doc=_text("""
            The attribute exists only in another version of the op (`dilations` in AvgPool-16).
            The older version ignores it, so the layer does not run what is written. Use the
            opset that has the attribute, or drop it. A value that changes nothing
            (`dilations="1,1"`, or the later version's default, which is what the earlier
            version does: MaxPool-8's `axis="0"` and `index_element_type="i64"` on MaxPool-1)
            is only IR212.
        """),
        wrong=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset1">
              <data dilations="2,2" kernel="2,2" ... />
        """),
        right=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset16">
              <data dilations="2,2" kernel="2,2" ... />
        """),
    ),
    Rule(
        code=MISSPELLED_ATTRIBUTE,
        name="misspelled-attribute",
        severity=E,
        runtime="reinterprets",
        summary="A near miss of a real attribute name; OpenVINO ignores it and uses the default.",
        doc=_text("""
            The name is a near miss of a real attribute (`exclude_pad` for `exclude-pad`).
            OpenVINO ignores unknown attributes, so the real one keeps its default and the
            value written here has no effect. Spell the attribute as the op defines it.
        """),
        wrong=_text("""
            <data kernel="2,2" strides="2,2" pads_begin="1,1" pads_end="1,1" exclude_pad="false" />
        """),
        right=_text("""
            <data kernel="2,2" strides="2,2" pads_begin="1,1" pads_end="1,1" exclude-pad="false" />
        """),
    ),
    Rule(
        code=UNKNOWN_ATTRIBUTE,
        name="unknown-attribute",
        severity=N,
        runtime="ignores",
        summary="An attribute the op does not read.",
        doc=_text("""
            The op has no attribute of this name and OpenVINO ignores it. It is noise that a
            reader may take for a setting. Remove it.

            An info, not a warning: OpenVINO's own converters write such attributes and
            nothing changes. Model Optimizer 2020-2021 writes `output_padding` on every
            Convolution-1 of an IR v10 file (up to 188 layers in an Open Model Zoo model).
            The same attribute on several layers of a file is one finding, which counts and
            names the layers (an editor shows it at each). A near miss of a real attribute is
            IR209, an error.
        """),
        wrong=_text("""
            <data kernel="2,2" strides="2,2" foo="1" ... />
        """),
        right=_text("""
            <data kernel="2,2" strides="2,2" ... />
        """),
        repeats=True,
    ),
    Rule(
        code=NON_CANONICAL_SPELLING,
        name="non-canonical-spelling",
        severity=N,
        runtime="ignores",
        summary="A type name, enum value or list in a spelling OpenVINO accepts but never writes.",
        doc=_text("""
            OpenVINO accepts the spelling (enum values and type names in any case, a `<Net>`
            root) but its serializer never writes it, and other tools may not accept it.
            Write the canonical spelling.

            An info, not a warning: OpenVINO reads the value as written, so nothing changes,
            and its own Model Optimizer (2020-2021, IR v10) writes Python's booleans
            (`special_zero="True"` on every Reshape). The same spelling on several layers of a
            file is one finding, which counts and names the layers (an editor shows it at
            each).
        """),
        wrong=_text("""
            <data auto_pad="SAME_UPPER" kernel="2,2" strides="2,2" ... />
        """),
        right=_text("""
            <data auto_pad="same_upper" kernel="2,2" strides="2,2" ... />
        """),
        repeats=True,
    ),
    Rule(
        code=IGNORED_ATTRIBUTE,
        name="ignored-attribute",
        severity=N,
        runtime="ignores",
        summary=(
            "An attribute the runtime ignores: shown by the specification, or a later version's "
            "no-op."
        ),
        doc=_text("""
            The specification shows the attribute (AdaptiveAvgPool-8's example carries
            `output_type`), or it belongs to a later version of the op and its value changes
            nothing (`dilations="1,1"` on AvgPool-1, which has no dilation; a later version's
            default, such as MaxPool-8's `axis="0"` and `index_element_type="i64"`, which
            Model Optimizer's POT writes on MaxPool-1), but the runtime never reads it. It is
            harmless; remove it so the file shows only what runs. A later version's attribute
            that would change something is IR208.
        """),
        wrong=_text("""
            <layer id="2" name="pool" type="AdaptiveAvgPool" version="opset8">
              <data output_type="i64" />
        """),
        right=_text("""
            <layer id="2" name="pool" type="AdaptiveAvgPool" version="opset8">
        """),
        repeats=True,
    ),
    Rule(
        code=OVERWRITTEN_PADS,
        name="overwritten-pads",
        severity=N,
        runtime="ignores",
        summary="Declared pads under same_*/valid that the runtime replaces with its own.",
        doc=_text("""
            With auto_pad same_upper, same_lower or valid, OpenVINO computes the pads itself
            and ignores pads_begin/pads_end, even a value it would misread (`-2`, `2.7`); one
            its reader refuses (`a`, `2,,0`) still fails the file (IR204). When the declared
            pads differ from the computed ones, the file shows pads that never apply. Write
            the pads the runtime computes (as OpenVINO's serializer does); `--fix` does it.
        """),
        wrong=_text("""
            <!-- input [1,3,32,32] -->
            <data auto_pad="same_upper" kernel="2,2" strides="2,2" pads_begin="0,0" pads_end="1,1"/>
        """),
        right=_text("""
            <!-- input [1,3,32,32] -->
            <data auto_pad="same_upper" kernel="2,2" strides="2,2" pads_begin="0,0" pads_end="0,0"/>
        """),
        fix="rewrites pads_begin/pads_end to the pads the runtime computes",
    ),
    Rule(
        code=MISSING_MANDATORY_ATTRIBUTE,
        name="missing-mandatory-attribute",
        severity=E,
        runtime="rejects",
        summary="An attribute (or <data> element) the runtime cannot do without is missing.",
        doc=_text("""
            Some attributes have no default at all: a Const needs its `offset`, `size`,
            `shape` and `element_type`, a Parameter its `<data>` with `shape` and
            `element_type`. OpenVINO refuses the layer without them. Write them. A warning
            in a layer OpenVINO drops (IR505); a Parameter is never dropped.
        """),
        wrong=_text("""
            <data element_type="i64" shape="2" offset="0" />
        """),
        right=_text("""
            <data element_type="i64" shape="2" offset="0" size="16" />
        """),
    ),
    Rule(
        code=UNKNOWN_OP_TYPE,
        name="unknown-op-type",
        severity=E,
        runtime="rejects",
        summary=(
            "OpenVINO has no op of this type in this version (or reads no value from a Constant)."
        ),
        doc=_text("""
            OpenVINO's IR reader creates each layer from the opset its `version` names:
            opset1 to opset17, or `experimental`/`extension` for a few detection ops. It
            refuses a version it does not know and a type that version does not have
            ("Opset opset1 doesn't contain the operation with type: AvgPoolX"), whether
            irpool models the op or not. Types are matched ignoring case, except `Const`
            (and a few ops the reader special-cases) which must be written exactly. A layer
            typed `Constant`, the op's own name, is created but its value is never read from
            the `.bin`: OpenVINO fails as soon as anything uses it ("ptr is Null"). irpool
            knows every opset's types from a table generated from OpenVINO itself. IR202
            remains for real ops that irpool does not check. In a layer OpenVINO drops
            because it feeds no Result, the reader never looks the type up: there it is a
            warning. An `extension` type that no opset has is an extension library's op
            (IR229, a warning).
        """),
        wrong=_text("""
            <layer id="1" name="pool" type="AvgPoolX" version="opset1">
            <layer id="2" name="size" type="Constant" version="opset1">
        """),
        right=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset1">
            <layer id="2" name="size" type="Const" version="opset1">
        """),
    ),
    Rule(
        code=INFERENCE_FAILURE,
        name="inference-failure",
        severity=E,
        runtime="fails",
        summary="A configuration that OpenVINO reads and compiles but its CPU plugin cannot run.",
        doc=_text("""
            OpenVINO reads and compiles the model, but the CPU plugin throws on the first
            inference: a MaxPool-8/14 whose indices output is used, with an
            `index_element_type` the plugin cannot compute (i8, u8, boolean or a float type;
            the 16-, 32- and 64-bit integer types work), or without `dilations`. Write
            `index_element_type="i32"` or `"i64"` and explicit dilations (all 1 for none).
            A Range whose `output_type` is `dynamic` (also when absent) or u1 fails alike:
            write a numeric type.
        """),
        wrong=_text("""
            <layer id="1" name="pool" type="MaxPool" version="opset8">
              <data index_element_type="u8" dilations="1,1" kernel="2,2" ... />
        """),
        right=_text("""
            <layer id="1" name="pool" type="MaxPool" version="opset8">
              <data index_element_type="i64" dilations="1,1" kernel="2,2" ... />
        """),
    ),
    Rule(
        code=UNKNOWN_VALUES,
        name="unknown-values",
        severity=N,
        runtime="ignores",
        summary="Declared dims irpool did not check: they depend on values it does not know.",
        doc=_text("""
            Said once per file, with the number of layers concerned. irpool tells a dim that
            is dynamic at run time (OpenVINO infers `?`: declaring it static is IR301) from
            one it does not know: a Const whose bytes are unavailable (IR401, IR402), a
            constant it does not fold, or the output of a layer it does not check (IR202: its
            value, its -1 dims, and its rank when the port has no `<dim>`, since the
            serializer writes scalars and dynamic ranks alike). What depends on an unknown
            never contradicts a declaration: no IR301, IR302 or IR303 and no fix, and the
            layer's declared dims carry the checks downstream, as a trusted layer's do.
            Nothing is wrong with the file; give irpool the weights (`--weights`, `git lfs
            pull`) to check everything.
        """),
        wrong=_text("""
            <!-- model.bin is missing: the Reshape's pattern is unknown -->
            <port id="2" precision="FP32"><dim>1</dim><dim>1001</dim></port>
        """),
        right=_text("""
            $ git lfs pull && irpool validate model.xml
        """),
    ),
    Rule(
        code=FAKE_QUANTIZE_FEW_LEVELS,
        name="fake-quantize-few-levels",
        severity=W,
        runtime="reinterprets",
        summary="A FakeQuantize of fewer than 2 levels: NaN everywhere (1) or no quantization (0).",
        doc=_text("""
            `read_model` takes any `levels`, and an absent one as 0. One level divides by
            levels - 1 = 0: every output is NaN. Zero wraps levels - 1 to 2**64 - 1: the data
            is only clamped to the input range (at f32's resolution) and mapped to the output
            range. Where the CPU plugin runs the layer on its own node (a crossed range, i32
            data), it refuses both ("supports 'levels' attribute greater than or equal to
            2"). Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO
            2026.4.1. Write the number of quantization levels (256 for 8 bits).
        """),
        wrong=_text("""
            <data auto_broadcast="numpy" />
        """),
        right=_text("""
            <data levels="256" auto_broadcast="numpy" />
        """),
    ),
    Rule(
        code=FAKE_QUANTIZE_CROSSED_RANGE,
        name="fake-quantize-crossed-range",
        severity=W,
        runtime="reinterprets",
        summary="A FakeQuantize input_low at or above its input_high: the CPU leaves the formula.",
        doc=_text("""
            The specification maps x at or below min(input_low, input_high) to output_low,
            above max(..) to output_high, and the rest by the formula. The CPU plugin clamps
            to [input_low, input_high] first: with input_low above input_high it gives
            output_low for every element those bounds cover (its node; where the node does not
            take the shapes, OpenVINO's reference computes the specification's values), and
            with input_low equal to input_high NaN (levels other than 2). Measured
            2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1. Order
            the bounds, or write output_low as a constant if that is what you want.
        """),
        wrong=_text("""
            <!-- input_low 2, input_high 0 -->
        """),
        right=_text("""
            <!-- input_low 0, input_high 2 -->
        """),
    ),
    Rule(
        code=DETECTION_OUTPUT_NO_KEEP_TOP_K,
        name="detection-output-no-keep-top-k",
        severity=E,
        runtime="crashes",
        summary="A DetectionOutput without keep_top_k: read_model reads past a list and crashes.",
        doc=_text("""
            DetectionOutput-1 and -8 read `keep_top_k` as a list of integers, empty when the
            attribute is absent or written "". OpenVINO's shape inference reads its first
            item unchecked: `read_model` reads past the end of the list and the process dies
            (a segmentation fault). Measured 2026-12-06 on AMD EPYC family 25 model 17, 2
            cores, OpenVINO 2026.4.1. Write keep_top_k: -1 keeps every detection, a count
            above 0 keeps that many per image.
        """),
        wrong=_text("""
            <data normalized="true" nms_threshold="0.45" top_k="400" />
        """),
        right=_text("""
            <data normalized="true" nms_threshold="0.45" top_k="400" keep_top_k="200" />
        """),
    ),
    Rule(
        code=DECLARED_DIM_FROM_SYMBOLS,
        name="declared-dim-from-symbols",
        severity=N,
        runtime="ignores",
        summary=(
            "A declared static <dim> that OpenVINO infers as dynamic when it reads the file: "
            "the converter knew it from its dimension symbols."
        ),
        doc=_text("""
            OpenVINO's converter infers shapes with dimension symbols: two dynamic dims that
            come from the same one are known equal, so a Reshape to Concat(ShapeOf(input_ids),
            [-1]) of a [?, ?, 4, 16] tensor gives [?, ?, 64] and the file declares 64.
            `read_model` infers shapes without symbols and gives ? there, which irpool infers
            too (OPT, MPT and GPT-2 style attention reshapes in optimum-intel's fp16 exports;
            the int8 and int4 ones, saved again after compression, declare -1). The declared
            value is one the inferred dim admits, and the CPU runs the file: not a false
            statement, only a more precise one than read_model's. A declared value the
            inferred dim does not admit is IR301. `--fix` writes -1.
        """),
        wrong=_text("""
            <!-- Reshape [?,?,4,16] to Concat(ShapeOf(input_ids), [-1]) -->
            <port id="2" precision="FP32"><dim>-1</dim><dim>-1</dim><dim>64</dim></port>
        """),
        right=_text("""
            <!-- Reshape [?,?,4,16] to Concat(ShapeOf(input_ids), [-1]) -->
            <port id="2" precision="FP32"><dim>-1</dim><dim>-1</dim><dim>-1</dim></port>
        """),
        fix="rewrites the <dim> to -1",
    ),
    Rule(
        code=EXTENSION_OP,
        name="extension-op",
        severity=W,
        runtime="extension",
        summary="An op of an extension library (openvino_tokenizers); irpool trusts its outputs.",
        doc=_text("""
            A layer whose `version` is `extension` with a type no opset has, or whose
            type only an extension library defines, is an extension's op: the tokenizer
            and detokenizer files optimum-cli writes are made of openvino_tokenizers'
            ops (StringTensorUnpack-1, SpecialTokensSplit, RegexSplit, BPETokenizer,
            VocabDecoder, CharsToBytes, RegexNormalization, ...). OpenVINO reads them
            only with that library loaded (`import openvino_tokenizers` before
            read_model, or `core.add_extension`); without it read_model fails ("Cannot
            create ... layer ... with type ..."). irpool does not model them: one
            warning per type, as IR202 for an op it does not check, and their declared
            outputs are trusted. `irpool run` cannot run such a file. A type that no
            opset and no known extension has stays IR216, an error, and so does a real
            op written with a version that lacks it.
        """),
        wrong=_text("""
            <layer id="3" name="bpe" type="BPETokenizer" version="extension">
        """),
        right=_text("""
            # pyproject.toml: a tokenizer file is expected to hold extension ops
            [tool.irpool]
            ignore = ["IR229"]
        """),
    ),
    Rule(
        code=OLDER_RELEASE_CANNOT_READ,
        name="older-release-cannot-read",
        severity=E,
        runtime="rejects",
        summary="The OpenVINO release targeted (`--openvino-version`, `openvino-version`) "
        "cannot read this op version or element type.",
        doc=_text("""
            Each release's IR reader knows the opsets, element types and IR features of its
            time; a file written by a newer exporter fails to load in an older runtime
            ("Cannot create Interpolate layer ... from unsupported opset: opset11"). irpool
            checks the file against the release named by `--openvino-version` (or
            `openvino-version` in `[tool.irpool]`); by default the installed OpenVINO's
            release, else the newest irpool knows, which reports nothing. The message
            names the first release that reads it, measured with each release's own
            `read_model` (docs/releases.md). Export with an older opset (`convert_model`
            does not offer one: export with the release you deploy), or deploy a newer
            runtime. A release older than the oldest measured (2023.0) is checked only for
            what came after it.
        """),
        wrong=_text("""
            $ irpool validate openvino_model.xml --openvino-version 2023.2
            openvino_model.xml:812:3: IR230 error ScaledDotProductAttention of opset13 is read
              from OpenVINO 2023.3; 2023.2 refuses it
        """),
        right=_text("""
            $ irpool validate openvino_model.xml --openvino-version 2023.3
        """),
    ),
    # IR3xx: shapes and types
    Rule(
        code=DECLARED_DIM_MISMATCH,
        name="declared-dim-mismatch",
        severity=E,
        runtime="ignores",
        summary=(
            "A declared <dim> differs from the inferred one; OpenVINO silently uses the inferred."
        ),
        doc=_text("""
            Every port declares its shape in `<dim>` elements, but OpenVINO never reads them:
            it infers each shape from the inputs and attributes and silently uses that. A
            declared dim that differs is a false statement about the model (the AvgPool-1
            specification's own examples declare 32x32 where the runtime gives 16x16). Write
            the inferred value, or -1 where it is not static; `--fix` does it. A static value
            that an inferred dynamic dim admits is IR224 (the converter's dimension symbols).

            A dim irpool does not know is never reported: one computed from a Const whose
            bytes are unavailable, from a constant it does not fold, or from a -1 declared by
            a layer it does not check (IR202) may be static at run time. The declared value
            then stands and carries the checks downstream, and the file counts it in IR218.
        """),
        wrong=_text("""
            <!-- AvgPool kernel 2,2 strides 2,2 on [1,3,32,32] -->
            <port id="1" precision="FP32"><dim>1</dim><dim>3</dim><dim>32</dim><dim>32</dim></port>
        """),
        right=_text("""
            <!-- AvgPool kernel 2,2 strides 2,2 on [1,3,32,32] -->
            <port id="1" precision="FP32"><dim>1</dim><dim>3</dim><dim>16</dim><dim>16</dim></port>
        """),
        fix="rewrites the <dim> to the value shape inference gives (-1 when not static)",
    ),
    Rule(
        code=DECLARED_RANK_MISMATCH,
        name="declared-rank-mismatch",
        severity=E,
        runtime="ignores",
        summary="A port declares a different number of dims than the inferred rank.",
        doc=_text("""
            The port declares more or fewer `<dim>` elements than the rank shape inference
            gives; OpenVINO ignores the declaration. Declare one `<dim>` per axis of the
            inferred shape (and none for a dynamic rank). A dynamic inferred rank holds every
            rank, so it contradicts no declaration; nor does a rank irpool does not know (a
            port without `<dim>` of a layer it does not check is a scalar or a dynamic rank:
            the serializer writes both alike), whose consumer's declared rank then stands.
        """),
        wrong=_text("""
            <!-- the pool's output is [1,1,2] -->
            <port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>2</dim><dim>1</dim></port>
        """),
        right=_text("""
            <!-- the pool's output is [1,1,2] -->
            <port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>2</dim></port>
        """),
    ),
    Rule(
        code=SHAPE_INFERENCE_FAILED,
        name="shape-inference-failed",
        severity=E,
        runtime="rejects",
        summary="The op's shape inference fails on its inputs and attributes.",
        doc=_text("""
            The op cannot produce an output for these inputs and attributes (a kernel larger
            than the padded input, a window entirely in the padding with exclude-pad, an input
            of the wrong rank), so OpenVINO refuses the model. `irpool explain` shows each
            layer's inputs and window geometry. Fix the attributes or the input shape. A layer
            whose inference needs a value irpool does not know (a pattern, axes or output_size
            read from a Const without its bytes) is not inferred: its declared outputs stand
            (IR218).
        """),
        wrong=_text("""
            <!-- input [1,1,4] -->
            <data kernel="5" strides="1" pads_begin="0" pads_end="0" exclude-pad="true" />
        """),
        right=_text("""
            <!-- input [1,1,4] -->
            <data kernel="3" strides="1" pads_begin="0" pads_end="0" exclude-pad="true" />
        """),
    ),
    Rule(
        code=INVALID_OUTPUT_SIZE,
        name="invalid-output-size",
        severity=E,
        runtime="reinterprets",
        summary="AdaptiveAvgPool output_size is not an i32/i64 1-D tensor of rank-2 values >= 1.",
        doc=_text("""
            AdaptiveAvgPool's second input gives the output size per spatial axis. The
            specification requires a 1-D i32 or i64 tensor of values of at least 1; OpenVINO
            accepts other types (truncating them silently) and zero or negative sizes (giving
            empty or undefined outputs). Make output_size an i64 (or i32) Const of positive
            values.
        """),
        wrong=_text("""
            <layer id="1" name="output_size" type="Const" version="opset1">
              <data element_type="f32" shape="2" offset="0" size="8" />
        """),
        right=_text("""
            <layer id="1" name="output_size" type="Const" version="opset1">
              <data element_type="i64" shape="2" offset="0" size="16" />
        """),
    ),
    Rule(
        code=DECLARED_PRECISION_MISMATCH,
        name="declared-precision-mismatch",
        severity=E,
        runtime="ignores",
        summary="A port precision differs from the element type that actually flows.",
        doc=_text("""
            The port's `precision` names another element type than the one that flows through
            it (an AvgPool's output has its input's type). OpenVINO uses the real type and
            ignores the declaration. Write the real type.
        """),
        wrong=_text("""
            <!-- the pool's input is f32 -->
            <port id="1" precision="FP16">
        """),
        right=_text("""
            <!-- the pool's input is f32 -->
            <port id="1" precision="FP32">
        """),
    ),
    Rule(
        code=IGNORED_AXES,
        name="ignored-axes",
        severity=E,
        runtime="reinterprets",
        summary="Squeeze axes name a dim that is not 1, or Unsqueeze axes repeat an axis.",
        doc=_text("""
            OpenVINO silently skips what it cannot do with the axes input: Squeeze keeps a
            dim that cannot be 1 at one of its axes (where NumPy and PyTorch would fail or
            the author expected it gone), and Unsqueeze inserts a repeated axis once, so the
            output has fewer dims than axes. The file then says something else than what
            runs. Name only dims of length 1 in Squeeze, and each axis once in Unsqueeze.
        """),
        wrong=_text("""
            <!-- Squeeze of [1,3,1,4] with the axes Const [0,1] -->
            <data element_type="i64" shape="2" offset="0" size="16" />
        """),
        right=_text("""
            <!-- Squeeze of [1,3,1,4] with the axes Const [0,2] -->
            <data element_type="i64" shape="2" offset="0" size="16" />
        """),
    ),
    Rule(
        code=RESHAPE_ELEMENT_COUNT,
        name="reshape-element-count",
        severity=E,
        runtime="reinterprets",
        summary=(
            "A Reshape's output, or a VariadicSplit's pieces, hold another number of elements "
            "than the input."
        ),
        doc=_text("""
            OpenVINO checks that a Reshape keeps the element count only when its pattern has
            neither a -1 nor (with special_zero) a 0. Otherwise it accepts a pattern whose
            output is larger or smaller than the input, and its CPU plugin then reads past
            the input (garbage values) or drops elements. Make the pattern's product equal to
            the input's element count (the 0s copy the input dims at the same positions).
            Likewise a VariadicSplit with a -1 whose other lengths exceed the axis: OpenVINO
            leaves the -1 piece empty (or dynamic) and its CPU plugin fills the others from
            past the input; make the lengths fit the axis.
        """),
        wrong=_text("""
            <!-- input [5,1], special_zero="true": the 0 copies 5, so the output is [5,5] -->
            <data element_type="i64" shape="2" offset="0" size="16" />  <!-- pattern 0,5 -->
        """),
        right=_text("""
            <!-- input [5,1], special_zero="true": the output is [5,1] -->
            <data element_type="i64" shape="2" offset="0" size="16" />  <!-- pattern 0,1 -->
        """),
    ),
    Rule(
        code=REPEATED_REDUCE_AXES,
        name="repeated-reduce-axes",
        severity=W,
        runtime="ignores",
        summary="ReduceMean or ReduceMax axes name one axis more than once.",
        doc=_text("""
            The axes of a ReduceMean or ReduceMax name one axis twice, directly (`1,1`) or
            once from each end (`1,-3` on rank 4). OpenVINO reads, compiles and runs it,
            reducing each axis once: the output, its rank and its values are those of the
            axes written once. NumPy and PyTorch refuse repeated axes, so the file was likely
            not written as meant. Write each axis once.
        """),
        wrong=_text("""
            <!-- ReduceMean of [2,3,4,5] with the axes Const [1,-3] -->
            <data element_type="i64" shape="2" offset="0" size="16" />
        """),
        right=_text("""
            <!-- ReduceMean of [2,3,4,5] with the axes Const [1] -->
            <data element_type="i64" shape="1" offset="0" size="8" />
        """),
    ),
    Rule(
        code=CPU_MISREWRITES_REDUCE,
        name="cpu-misrewrites-reduce",
        severity=E,
        runtime="reinterprets",
        summary="A Reduce after an Unsqueeze or a 1-inserting Reshape that the CPU plugin "
        "rewrites wrongly.",
        doc=_text("""
            OpenVINO moves an Unsqueeze, or a Reshape that only inserts 1s, below the Reduce
            (ReduceMean, ReduceMax, ...) it feeds, when the Reduce's axes are constant and
            nothing else reads the Unsqueeze. OpenVINO 2026.4 gets that rewrite wrong in two
            cases: a negative axis before an inserted 1 is kept as written, so it then counts
            from the end of the smaller input (the CPU reduces another axis, or fails to
            compile: "Axis -3 out of the tensor rank range"); and with keep_dims the 1s are
            put back in other places when a reduced axis comes before an inserted 1 (another
            output shape). The file is valid, but the CPU plugin does not run what it says,
            so the model cannot be trusted there. irpool replays the rewrite (measured on
            2,000 configurations, each predicted) and reports exactly the cases that go wrong.
            Write the axes as non-negative numbers (which fixes the first case), or reduce
            before inserting the 1s; `irpool run` computes what the file says.
        """),
        wrong=_text("""
            <!-- x [2,3] -> Unsqueeze(axes=2) -> [2,3,1] -> ReduceMean(axes=-2): -->
            <!-- OpenVINO's CPU reduces axis 0 of x, and returns [3,1], not [2,1] -->
            <layer id="4" name="mean" type="ReduceMean" version="opset1">
        """),
        right=_text("""
            <!-- the same axis written as 1 -->
            <layer id="4" name="mean" type="ReduceMean" version="opset1">
        """),
    ),
    Rule(
        code=CPU_MISREADS_PAD_VALUE,
        name="cpu-misreads-pad-value",
        severity=E,
        runtime="reinterprets",
        summary="A constant-mode Pad whose pad_value is not constant when the CPU plugin "
        "compiles the model: it pads with 0 or a stale value.",
        doc=_text("""
            The CPU plugin reads a Pad's `pad_value` once, when it compiles the model, unless
            the value is then a constant: a Const, or what OpenVINO folds from Consts and
            from the ShapeOf of static shapes. A value fed by a Parameter, or computed from
            one or from a dynamic shape, it does not read as the file says (measured,
            OpenVINO 2026.4): with constant pads and a static data shape it pads with 0 on
            every run; with a dynamic data shape it reads the value only when that shape
            changes, and a computed one before computing it (the previous run's value, or
            memory never written). Only pads that are themselves run-time values make it
            read the value on every run, and then it is right. Make `pad_value` a Const;
            `irpool run` computes what the file says.
        """),
        wrong=_text("""
            <!-- x [2,3] padded by Consts; pad_value is the Parameter "fill": -->
            <!-- the CPU plugin pads with 0 whatever "fill" holds -->
            <edge from-layer="3" from-port="0" to-layer="4" to-port="3" />
        """),
        right=_text("""
            <!-- pad_value from a Const -->
            <edge from-layer="5" from-port="0" to-layer="4" to-port="3" />
        """),
    ),
    Rule(
        code=RESHAPE_REFUSED,
        name="reshape-refused",
        severity=E,
        runtime="rejects",
        summary="At the input shapes asked for (`--shape`, `model.reshape`), a layer refuses "
        "its inputs: OpenVINO's reshape to them fails there.",
        doc=_text("""
            Only `irpool validate --shape` and `Model.reshape` report it. OpenVINO's
            `model.reshape` gives the inputs new shapes and infers every layer again; a layer
            whose inputs no longer fit (a Reshape to a fixed element count, an Add of a
            constant of the old spatial size, a Concat of a fixed-size constant) makes the
            reshape raise. The message says what the layer refuses and, when one of its
            inputs is computed from constants alone, the chain back to the Const that bakes
            the old shape. Fix the exporter's graph (a Reshape target with 0 or -1 for the
            dims that follow the input, a size computed by ShapeOf), or export at the shape
            you need. The file itself is not wrong: without `--shape` the rule never fires.
        """),
        wrong=_text("""
            $ irpool validate vit.xml --shape "x[4,3,224,224]"
            vit.xml:812:5: error: IR311 reshape-refused: does not reshape to x[4,3,224,224]:
              Reshape-1: the target [1,197,768] holds 151296 elements, the input 605184;
              the old shape is baked in input 1 of layer 40 "Reshape_1" (Reshape) <- Const
              "shape" [1, 197, 768]
        """),
        right=_text("""
            <!-- the batch dim follows the input -->
            <layer id="39" name="shape" type="Const" version="opset1"> ... [0, 197, 768] with
            special_zero="true" on the Reshape
        """),
    ),
    # IR4xx: weights
    Rule(
        code=WEIGHTS_UNAVAILABLE,
        name="weights-unavailable",
        severity=E,
        runtime="rejects",
        summary="Const layers need a .bin file that is missing, not a regular file, or empty.",
        doc=_text("""
            Const layers read their values from the weights file, by default the `.bin` beside
            the `.xml` with the same stem. It is missing or not a regular file, so the model
            cannot load. Put the `.bin` beside the `.xml`, or name it with `--weights`. A
            `.bin` that is a Git LFS pointer (text beginning `version
            https://git-lfs.github.com/spec/v1`, what a clone holds before `git lfs pull`) is
            said to be one. What depends on the missing values is left unchecked, never
            reported (IR218).

            An empty `.bin` gives the Consts of no elements that it holds no data at all:
            OpenVINO loads them as outputs or Reshape patterns, but read_model fails ("ptr is
            Null") when ReduceMean, ReduceMax, Squeeze or Unsqueeze read their `axes` from
            one. A `.bin` of at least one byte loads.
        """),
        wrong="$ ls\nmodel.xml",
        right="$ ls\nmodel.bin  model.xml",
    ),
    Rule(
        code=CONST_OUT_OF_BOUNDS,
        name="const-out-of-bounds",
        severity=E,
        runtime="rejects",
        summary="A Const's offset and size reach past the end of the .bin.",
        doc=_text("""
            The Const's bytes are `offset` to `offset + size` in the `.bin`, and that range
            ends past the end of the file: the `.bin` is truncated or belongs to another
            model. Use the `.bin` written with this `.xml`.
        """),
        wrong=_text("""
            <!-- model.bin is 8 bytes -->
            <data element_type="i64" shape="1" offset="8" size="8" />
        """),
        right=_text("""
            <!-- model.bin is 8 bytes -->
            <data element_type="i64" shape="1" offset="0" size="8" />
        """),
    ),
    Rule(
        code=CONST_SIZE_TOO_SMALL,
        name="const-size-too-small",
        severity=E,
        runtime="rejects",
        summary="A Const's size is smaller than its shape and element type need.",
        doc=_text("""
            `size` must hold every element of `shape` at the width of `element_type`
            (2 x i64 = 16 bytes). With fewer bytes OpenVINO refuses the Const. Write the size
            the shape needs. A `string` Const holds packed strings: their count, count + 1
            offsets (int32) and the characters; OpenVINO refuses one whose count is not the
            shape's, whose header or offsets reach past `size`, or whose offsets go down.
        """),
        wrong=_text("""
            <data element_type="i64" shape="2" offset="0" size="8" />
        """),
        right=_text("""
            <data element_type="i64" shape="2" offset="0" size="16" />
        """),
    ),
    Rule(
        code=CONST_SIZE_TOO_LARGE,
        name="const-size-too-large",
        severity=W,
        runtime="ignores",
        summary="A Const's size is larger than its shape needs; the extra bytes are ignored.",
        doc=_text("""
            `size` is larger than the shape needs; OpenVINO reads only the bytes the shape
            needs and ignores the rest. Usually the element type or shape is not what the
            writer meant. Make size, shape and element type agree.
        """),
        wrong=_text("""
            <data element_type="i32" shape="1" offset="0" size="8" />
        """),
        right=_text("""
            <data element_type="i32" shape="1" offset="0" size="4" />
        """),
    ),
    # IR5xx: the graph
    Rule(
        code=UNKNOWN_EDGE_LAYER,
        name="unknown-edge-layer",
        severity=E,
        runtime="rejects",
        summary="An edge names a layer id that does not exist.",
        doc=_text("""
            An edge's `from-layer` names no layer of the model, so OpenVINO cannot connect the
            layer it feeds, and refuses the file. An edge whose `to-layer` names no layer
            leads into nothing OpenVINO builds: its reader follows only the edges into the
            layers it creates, skips that edge and loads the file (measured, OpenVINO 2026.4),
            so there it is a warning, as in a layer OpenVINO drops (IR505). Point the edge at
            an existing layer id, or delete it.
        """),
        wrong=_text("""
            <edge from-layer="5" from-port="0" to-layer="1" to-port="0" />
        """),
        right=_text("""
            <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
        """),
    ),
    Rule(
        code=UNKNOWN_EDGE_PORT,
        name="unknown-edge-port",
        severity=E,
        runtime="rejects",
        summary=(
            "An edge names a port that is not an output (from) or input (to) port of its layer."
        ),
        doc=_text("""
            Edges run from an output port (`from-port`) to an input port (`to-port`). The
            named port does not exist on that layer, or is on the wrong side. Use the port
            ids declared in the layers' `<output>` and `<input>`.
        """),
        wrong=_text("""
            <!-- layer 1 has input port 0 and output port 1 -->
            <edge from-layer="0" from-port="0" to-layer="1" to-port="1" />
        """),
        right=_text("""
            <!-- layer 1 has input port 0 and output port 1 -->
            <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
        """),
    ),
    Rule(
        code=INPUT_EDGE_COUNT,
        name="input-edge-count",
        severity=E,
        runtime="rejects",
        summary="An input port has no incoming edge or more than one.",
        doc=_text("""
            Every input port takes exactly one edge. With none the op has no operand; with two
            it is ambiguous. OpenVINO refuses both. Connect each input port once. In a layer
            that feeds no Result (IR505) it is a warning: OpenVINO drops the layer unread.
        """),
        wrong=_text("""
            <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
            <edge from-layer="3" from-port="0" to-layer="1" to-port="0" />
        """),
        right=_text("""
            <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
        """),
    ),
    Rule(
        code=CYCLE,
        name="cycle",
        severity=E,
        runtime="rejects",
        summary="The edges form a cycle.",
        doc=_text("""
            A model is a directed acyclic graph; these edges lead from a layer back to itself,
            so there is no order to run the layers in. OpenVINO refuses the model. Remove the
            edge that closes the cycle.
        """),
        wrong=_text("""
            <edge from-layer="1" from-port="1" to-layer="2" to-port="0" />
            <edge from-layer="2" from-port="1" to-layer="1" to-port="0" />
        """),
        right=_text("""
            <edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
            <edge from-layer="1" from-port="1" to-layer="2" to-port="0" />
        """),
    ),
    Rule(
        code=UNREACHABLE_LAYER,
        name="unreachable-layer",
        severity=W,
        runtime="ignores",
        summary="A layer no Result depends on; OpenVINO silently drops it.",
        doc=_text("""
            No Result depends on the layer, so OpenVINO drops it when it builds the model: it
            never runs, and its op is never even created. What would be an error inside it
            (an unknown type or opset, a missing or wrong attribute, a wrong port count, a
            missing input edge or one naming no port, a wrong dim) is therefore a warning
            there, its message saying the layer is dropped. Only what OpenVINO's reader checks in
            every layer stays an error: a missing `version` or id (IR105, IR106) and port
            precisions and dims it cannot read (IR109, IR110, IR111). Connect the layer to a
            Result or delete it.
        """),
        wrong=_text("""
            <!-- layer 3 "unused" feeds nothing -->
            <edge from-layer="0" from-port="0" to-layer="3" to-port="0" />
        """),
        right=_text("""
            <!-- layer 3 "unused" feeds a Result -->
            <edge from-layer="0" from-port="0" to-layer="3" to-port="0" />
            <edge from-layer="3" from-port="1" to-layer="4" to-port="0" />
        """),
    ),
    Rule(
        code=WRONG_PORT_COUNT,
        name="wrong-port-count",
        severity=E,
        runtime="rejects",
        summary="A layer has a different number of input or output ports than its op.",
        doc=_text("""
            Each op has a fixed number of inputs and outputs (AvgPool: 1 and 1;
            AdaptiveAvgPool: 2 inputs, data and output_size, and 1 output). A layer with
            another number of inputs, or more outputs than its op, cannot be built ("node
            index is out of range"). Fewer outputs are fine: OpenVINO creates all the op's
            outputs and reads the first ones declared, so a MaxPool-8 or AdaptiveMaxPool-8
            that declares only its values port loads and runs (measured, OpenVINO 2026.4).
            Declare the op's ports, all inside one `<input>` and one `<output>` element. A
            warning in a layer OpenVINO drops (IR505).
        """),
        wrong=_text("""
            <output>
              <port id="1" precision="FP32">...</port>
              <port id="2" precision="FP32">...</port>
            </output>
        """),
        right=_text("""
            <output>
              <port id="1" precision="FP32">...</port>
            </output>
        """),
    ),
    Rule(
        code=NO_RESULT,
        name="no-result",
        severity=E,
        runtime="reinterprets",
        summary="No Result, or a Result OpenVINO does not read as one: it loads fewer outputs "
        "than written.",
        doc=_text("""
            Without a Result layer OpenVINO reads the file as a model with no outputs: it
            drops every layer but the Parameters, unread, and loads and compiles what is left
            (measured, OpenVINO 2026.4). That is a Result deleted, retyped, or written in
            another case: the reader takes a layer as a Result only when its type is exactly
            `Result` (a `result` layer, unlike a `relu` one, is no Result). The file describes
            a computation the runtime silently never runs, so this is an error; what is wrong
            inside the dropped layers (an unknown type, an edge into the deleted Result) is a
            warning, as in any layer OpenVINO drops (IR505). `irpool run` refuses such a
            model. Beside real Results, a `result` layer is an error too: OpenVINO drops it,
            and the model has one output fewer than written. Add a Result fed by the output
            you want, its type written `Result`.
        """),
        wrong=_text("""
            <!-- layers: input (Parameter), pool (AvgPool); no Result -->
        """),
        right=_text("""
            <layer id="2" name="output" type="Result" version="opset1">
              <input><port id="0" precision="FP32">...</port></input>
            </layer>
        """),
    ),
    Rule(
        code=SHARED_TENSOR_NAME,
        name="shared-tensor-name",
        severity=W,
        runtime="reinterprets",
        summary="Two tensors are given the same tensor name; OpenVINO renames one.",
        doc=_text("""
            A tensor name (a port's `names`, or in IR v11 a Result's `output_names`, which name
            the tensor the Result takes) marks one tensor. When two tensors are given the
            same name, OpenVINO keeps it on one and silently renames it on the others ("a"
            becomes "a_1", or "a_2" when "a_1" is taken), so `model.input("a")` or
            `model.output("a")` may find a tensor other than the one the file meant. The
            message says which tensor keeps the name and what the others are renamed to.
            The name stays on the first tensor in this order: the Parameters' (in XML
            order), then those the Results take (the Results in XML order), then the others
            in the order of OpenVINO's `get_ordered_ops()`.

            A warning, not an error: Model Optimizer (2022-2023) and the PyTorch frontend
            write such files themselves (a Parameter "data" and the mean-subtracting Add
            after it, both named "data"), and OpenVINO compiles and runs them. `irpool run`
            keys its inputs and outputs by the names as OpenVINO renames them. Give each
            tensor its own names.
        """),
        wrong=_text("""
            <port id="0" precision="FP32" names="x">...</port>   <!-- Parameter "in" -->
            <port id="1" precision="FP32" names="x">...</port>   <!-- AvgPool "pool" -->
        """),
        right=_text("""
            <port id="0" precision="FP32" names="x">...</port>
            <port id="1" precision="FP32" names="pooled">...</port>
        """),
    ),
    Rule(
        code=V10_NAME_COLLISION,
        name="v10-name-collision",
        severity=E,
        runtime="rejects",
        summary=(
            "IR v10: a Parameter's name or the name of a layer feeding a Result collides with a "
            "tensor name."
        ),
        doc=_text("""
            Reading IR v10, OpenVINO adds the name of every Parameter and of every layer that
            feeds a Result (with ".N" for output N of a layer with several outputs) to that
            tensor's names, and read_model fails when such a name is taken by another tensor:
            "Model tensor names have collisions" or "Model operation names have collisions
            with tensor names". A Parameter with tensor names that feeds a Result directly
            fails the same way, and so do two Results of one named tensor. Rename the layer
            or the tensor, or write IR v11, which does not add names.
        """),
        wrong=_text("""
            <net name="model" version="10">
              <layer id="0" name="in" type="Parameter" ...>   <!-- output names="pool" -->
              <layer id="1" name="pool" type="AvgPool" ...>   <!-- feeds the Result -->
        """),
        right=_text("""
            <net name="model" version="10">
              <layer id="0" name="in" type="Parameter" ...>   <!-- output names="in" -->
              <layer id="1" name="pool" type="AvgPool" ...>
        """),
    ),
    Rule(
        code=ASSIGN_WITHOUT_READ_VALUE,
        name="assign-without-read-value",
        severity=E,
        runtime="rejects",
        summary="An Assign whose variable no ReadValue it pairs with reads.",
        doc=_text("""
            An Assign stores the next value of the variable its `variable_id` names, and
            OpenVINO takes the variable from a ReadValue of that id: an Assign-6 from a
            ReadValue-3 or -6, an Assign-3 from a ReadValue-3 only. Without one
            read_model fails ("map::at"; an Assign-3 beside a ReadValue-6 only: "Can't
            find variable with id = v"). Measured 2026-12-06 on AMD EPYC family 25 model
            17, 2 cores, OpenVINO 2026.4.1. Give the Assign the `variable_id` of its
            ReadValue, or write both in the same version.
        """),
        wrong=_text("""
            <layer id="2" name="cache" type="ReadValue" version="opset6">
              <data variable_id="past" variable_type="f32" variable_shape="1,2" />
            <layer id="4" name="store" type="Assign" version="opset6">
              <data variable_id="past_1" />
        """),
        right=_text("""
            <layer id="4" name="store" type="Assign" version="opset6">
              <data variable_id="past" />
        """),
    ),
    Rule(
        code=VARIABLE_TYPE_MISMATCH,
        name="variable-type-mismatch",
        severity=E,
        runtime="rejects",
        summary="An Assign writes data of another element type than its variable's.",
        doc=_text("""
            A variable has one element type: ReadValue-6's `variable_type`
            (ReadValue-3's: its initializer's). read_model refuses an Assign whose data
            has another one ("The type specified in the Variable is not compatible with
            the input type. Input type: f16 Variable type: f32"; versions 3: "Variables
            types are inconsistent."); a dynamic type on either side is compatible.
            Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO
            2026.4.1. Convert the data to the variable's type before the Assign.
        """),
        wrong=_text("""
            <data variable_id="v" variable_type="f32" variable_shape="1,2" />  <!-- ReadValue -->
            <port id="0" precision="FP16">  <!-- the Assign's input -->
        """),
        right=_text("""
            <data variable_id="v" variable_type="f32" variable_shape="1,2" />
            <port id="0" precision="FP32">
        """),
    ),
    Rule(
        code=VARIABLE_SHAPE_MISMATCH,
        name="variable-shape-mismatch",
        severity=E,
        runtime="rejects",
        summary="An Assign writes data of a shape its variable cannot hold.",
        doc=_text("""
            A variable's shape is ReadValue-6's `variable_shape` (ReadValue-3's: its
            initializer's). read_model refuses an Assign whose data's shape is not
            compatible with it, i.e. no concrete shape fits both ("The shape specified
            in the Variable is not compatible with the shape of the input. Input shape:
            [2,2] Variable shape: [1,2]"; versions 3: "Variables output shapes are
            inconsistent."). A dynamic dim is compatible with any length: a KV cache is
            declared `?,4,?,8`. Measured 2026-12-06 on AMD EPYC family 25 model 17, 2
            cores, OpenVINO 2026.4.1. Declare the dims that change from run to run
            dynamic, or fix the data's shape.
        """),
        wrong=_text("""
            <data variable_id="v" variable_type="f32" variable_shape="1,2" />  <!-- ReadValue -->
            <port id="0" precision="FP32"><dim>2</dim><dim>2</dim></port>  <!-- Assign -->
        """),
        right=_text("""
            <data variable_id="v" variable_type="f32" variable_shape="?,2" />
        """),
    ),
    Rule(
        code=CPU_DYNAMIC_RANK_INPUT,
        name="cpu-dynamic-rank-input",
        severity=E,
        runtime="crashes",
        summary="A Parameter of dynamic rank: OpenVINO reads it, its CPU plugin cannot compile it.",
        doc=_text("""
            A Parameter written `shape="..."` has a dynamic rank. The serializer writes such a
            model and `read_model` reads it, but the CPU plugin refuses to compile a model
            whose input has no rank. Reshape the model to a known rank first.
        """),
        wrong=_text("""
            <data shape="..." element_type="f32" />
        """),
        right=_text("""
            <data shape="1,3,?,?" element_type="f32" />
        """),
    ),
    Rule(
        code=CPU_UNCOMPILED_ELEMENT_TYPE,
        name="cpu-uncompiled-element-type",
        severity=E,
        runtime="crashes",
        summary="An element type OpenVINO reads but its CPU plugin cannot compile there.",
        doc=_text("""
            The CPU plugin compiles no layer that computes on strings (a pooling, a reduction,
            a Convert from or to string; a string Parameter through Squeeze, Unsqueeze or
            Reshape to a Result compiles), no Convert to and no Parameter of u3 or u6, no
            Parameter of dynamic element type, no Convert to a dynamic type (a missing
            `destination_type`), no Range with a string `output_type`, and no Negative of an
            unsigned integer type (u8, u16, u32, u64: the plugin rewrites it as a Multiply by
            -1, a constant out of the type's range; measured 2026-12-06, AMD EPYC family 25
            model 17, OpenVINO 2026.4.1). `read_model` reads them all. Write a numeric
            element type the CPU computes (a signed one for Negative).
        """),
        wrong=_text("""
            <layer id="1" name="cast" type="Convert" version="opset1">
              <data destination_type="u3" />
        """),
        right=_text("""
            <layer id="1" name="cast" type="Convert" version="opset1">
              <data destination_type="u8" />
        """),
    ),
    Rule(
        code=CPU_WRAPPED_STRIDE,
        name="cpu-wrapped-stride",
        severity=E,
        runtime="crashes",
        summary="A negative stride, read as one wrapped around 2**64: the CPU plugin cannot "
        "compile the layer.",
        doc=_text("""
            OpenVINO reads a negative stride as that value wrapped around 2**64 (IR205: one
            output on that axis). The CPU plugin cannot compile a Convolution,
            GroupConvolution, AvgPool or MaxPool-1 with such a stride ("Supported primitive
            descriptors list is empty"), nor a MaxPool-8 or -14 whose indices output nothing
            reads. A MaxPool-8 or -14 whose indices are read compiles and runs: the plugin
            runs it in its reference code (measured 2026-12-06, AMD EPYC family 25 model 17,
            2 cores, OpenVINO 2026.4.1, with strides "2, -1", "-1, 2" and "-1, -1",
            dilations "2, 1" and "1, 1", on a 1x2x9x9 f32 input). Write positive strides.
        """),
        wrong=_text("""
            <data kernel="2" strides="-1" pads_begin="0" pads_end="0" ... />
        """),
        right=_text("""
            <data kernel="2" strides="4" pads_begin="0" pads_end="0" ... />
        """),
    ),
    Rule(
        code=CPU_POOLING_WITHOUT_DILATIONS,
        name="cpu-pooling-without-dilations",
        severity=E,
        runtime="crashes",
        summary="AvgPool-16, or MaxPool-14 with ceil_torch, without dilations: the CPU plugin "
        "crashes compiling it.",
        doc=_text("""
            AvgPool-16, and MaxPool-14 with `rounding_type="ceil_torch"` whose indices
            nothing reads, with empty or missing dilations (which the serializer itself can
            write): OpenVINO reads the layer, but its CPU plugin aborts compiling it
            (MaxPool-14 segfaults). Write explicit dilations, all 1 for none.
        """),
        wrong=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset16">
              <data dilations="" kernel="2,2" strides="2,2" ... />
        """),
        right=_text("""
            <layer id="1" name="pool" type="AvgPool" version="opset16">
              <data dilations="1,1" kernel="2,2" strides="2,2" ... />
        """),
    ),
    Rule(
        code=CPU_POOLING_INDEX_TYPE,
        name="cpu-pooling-index-type",
        severity=E,
        runtime="crashes",
        summary="Pooling indices the CPU plugin cannot compute: AdaptiveMaxPool-8 i64, MaxPool "
        "on bf16 data.",
        doc=_text("""
            The CPU plugin refuses to compile an AdaptiveMaxPool-8 with i64 indices (the
            default), unless it is a global pooling (output_size all ones) whose indices
            nothing reads, which it compiles as a ReduceMax. It computes MaxPool-8/14
            indices only in its reference code, which has no bf16: a MaxPool-8/14 on bf16
            data whose indices output is read does not compile on a host with AVX-512 (an
            AVX2-only host computes bf16 layers in f32 and compiles it; the file still fails
            wherever it is deployed on AVX-512). Write `index_element_type="i32"` (a Convert
            to i64 after it if i64 is needed), or pool f32 data.
        """),
        wrong=_text("""
            <layer id="1" name="pool" type="AdaptiveMaxPool" version="opset8">
              <data index_element_type="i64" />
        """),
        right=_text("""
            <layer id="1" name="pool" type="AdaptiveMaxPool" version="opset8">
              <data index_element_type="i32" />
        """),
    ),
    Rule(
        code=CPU_WINDOW_IN_PADDING,
        name="cpu-window-in-padding",
        severity=E,
        runtime="crashes",
        summary="An AvgPool window in the padding on a dynamic dim: the CPU plugin refuses it.",
        doc=_text("""
            With `exclude-pad="true"`, a kernel (after dilation) that fits entirely in the
            padding is an error `read_model` raises only on static dims (IR303). On a
            dynamic dim it reads the layer, but the CPU plugin checks the window when it
            compiles and refuses it. Make the pads smaller than the dilated kernel.
        """),
        wrong=_text("""
            <!-- input [1,1,?] -->
            <data kernel="2" pads_begin="2" pads_end="0" exclude-pad="true" ... />
        """),
        right=_text("""
            <!-- input [1,1,?] -->
            <data kernel="2" pads_begin="1" pads_end="0" exclude-pad="true" ... />
        """),
    ),
    Rule(
        code=CPU_EMPTY_REDUCE_AXES,
        name="cpu-empty-reduce-axes",
        severity=E,
        runtime="crashes",
        summary="A reduction over no axes without keep_dims: the CPU plugin refuses to compile it.",
        doc=_text("""
            A ReduceMean, ReduceMax or ReduceProd with empty axes changes nothing; OpenVINO
            reads it, but with `keep_dims="false"` on an input of rank one or more its CPU
            plugin refuses to compile it. Write `keep_dims="true"`, or remove the layer.
        """),
        wrong=_text("""
            <data keep_dims="false" />   <!-- axes: an empty i64 Const -->
        """),
        right=_text("""
            <data keep_dims="true" />   <!-- axes: an empty i64 Const -->
        """),
    ),
    Rule(
        code=CPU_MVN_AXES_OUT_OF_RANK,
        name="cpu-mvn-axes-out-of-rank",
        severity=E,
        runtime="crashes",
        summary="MVN-6 axes outside the input's rank: read_model checks only their count.",
        doc=_text("""
            `read_model` checks only how many axes an MVN-6 has; its CPU plugin cannot
            compile axes that lie outside the input's rank. Write axes within
            [-rank, rank - 1].
        """),
        wrong=_text("""
            <!-- input [1,3,4]; axes Const [5] -->
        """),
        right=_text("""
            <!-- input [1,3,4]; axes Const [2] -->
        """),
    ),
    Rule(
        code=CPU_ROLL_SCALAR_SHIFT,
        name="cpu-roll-scalar-shift",
        severity=E,
        runtime="crashes",
        summary="A Roll with one scalar shift for several axes: the CPU plugin cannot compile it.",
        doc=_text("""
            OpenVINO reads a Roll whose shift is a scalar and whose axes are several, but its
            CPU plugin refuses to compile it ("'shift' and 'axes' dimensions mismatch"),
            unless the data has no elements. Write one shift per axis.
        """),
        wrong=_text("""
            <!-- shift: Const [] = 1; axes: Const [2] = 0,1 -->
        """),
        right=_text("""
            <!-- shift: Const [2] = 1,1; axes: Const [2] = 0,1 -->
        """),
    ),
    Rule(
        code=CPU_PAD_CUTS_PAST_AXIS,
        name="cpu-pad-cuts-past-axis",
        severity=E,
        runtime="crashes",
        summary="Negative pads that cut more than a whole axis: the CPU plugin cannot run them.",
        doc=_text("""
            OpenVINO reads a Pad whose negative pads cut past an axis (one pad beyond the
            axis, or both together), but its CPU plugin cannot run it: one pad beyond the
            axis corrupts memory ("free(): invalid pointer"), pads together beyond it read
            undefined memory. Cut at most the whole axis.
        """),
        wrong=_text("""
            <!-- data [1,4]; pads_begin Const [0,-5]; pads_end Const [0,0] -->
        """),
        right=_text("""
            <!-- data [1,4]; pads_begin Const [0,-4]; pads_end Const [0,0] -->
        """),
    ),
    Rule(
        code=CPU_SCATTER_UPDATES_RANK,
        name="cpu-scatter-updates-rank",
        severity=E,
        runtime="crashes",
        summary="ScatterNDUpdate updates of rank one or more for single elements.",
        doc=_text("""
            When every index of a ScatterNDUpdate names a single element, `read_model` takes
            updates of any shape with that many elements, but the CPU plugin cannot compile
            updates that are not a scalar ("do not have matched tensor rank relationship").
            Give scalar updates.
        """),
        wrong=_text("""
            <!-- data [2,3]; indices [2] = 0,1; updates [1] -->
        """),
        right=_text("""
            <!-- data [2,3]; indices [2] = 0,1; updates [] -->
        """),
    ),
    Rule(
        code=CPU_TRANSPOSE_BYTE_ORDER,
        name="cpu-transpose-byte-order",
        severity=E,
        runtime="fails",
        summary="A Transpose of rank 0 or 1 by an 8-bit order: the CPU plugin cannot run it.",
        doc=_text("""
            OpenVINO reads a Transpose of a scalar or a vector whose order is an i8 or u8
            Const, but its CPU plugin fails to run it ("contains less child edges"); wider
            order types and higher ranks run. Write the order as i64 (or remove the layer:
            it changes nothing).
        """),
        wrong=_text("""
            <!-- data [4]; order: u8 Const [1] = 0 -->
        """),
        right=_text("""
            <!-- data [4]; order: i64 Const [1] = 0 -->
        """),
    ),
    Rule(
        code=CPU_ATTENTION_MASK_KEYS,
        name="cpu-attention-mask-keys",
        severity=E,
        runtime="crashes",
        summary="A ScaledDotProductAttention mask that widens key's and value's single key.",
        doc=_text("""
            `read_model` broadcasts an attention mask over key's and value's length; where
            that length is 1 and the mask's is more, the CPU plugin cannot compile the layer
            (its product with value fails). Give the mask the keys' length.
        """),
        wrong=_text("""
            <!-- key, value [1,2,1,8]; attn_mask [1,1,4,3] -->
        """),
        right=_text("""
            <!-- key, value [1,2,1,8]; attn_mask [1,1,4,1] -->
        """),
    ),
    Rule(
        code=CPU_GATHER_RUN_TIME_AXIS,
        name="cpu-gather-run-time-axis",
        severity=E,
        runtime="crashes",
        summary="A Gather axis computed at run time on static data and indices.",
        doc=_text("""
            The CPU plugin reads a Gather axis that is not a constant OpenVINO folds only
            where the data's or the indices' shape is dynamic. With both static it fails
            compiling the model ("axis value is not set", Gather-7 and -8) or crashes
            (Gather-1: segmentation fault), except a Gather-1 of one element (a scalar index
            into 1-D data), which runs. Write the axis as a Const.
        """),
        wrong=_text("""
            <!-- data [3,5], indices [2]; axis: a Parameter -->
        """),
        right=_text("""
            <!-- data [3,5], indices [2]; axis: i64 Const [] = 1 -->
        """),
    ),
    Rule(
        code=CPU_GATHER_NO_ELEMENTS,
        name="cpu-gather-no-elements",
        severity=E,
        runtime="crashes",
        summary="A Gather picking no elements from data that is not a constant.",
        doc=_text("""
            The CPU plugin divides by the indices per batch, by the data dims between the
            batch dims and the axis, and (with more than one index per batch, or batch dims)
            by those after the axis: where one is 0 it crashes compiling the model
            (floating-point exception). A 0 after the axis with one index and no batch dims
            runs, and so does constant data, which OpenVINO folds.
        """),
        wrong=_text("""
            <!-- data [3,5] (a Parameter); indices [0]; axis 0 -->
        """),
        right=_text("""
            <!-- data [3,5] (a Parameter); indices [1]; axis 0 -->
        """),
    ),
    Rule(
        code=CPU_GATHER_UNIT_BATCH,
        name="cpu-gather-unit-batch",
        severity=E,
        runtime="sometimes",
        summary="A Gather with batch_dims over batch dims all 1: the CPU plugin crashes in "
        "some runs.",
        doc=_text("""
            OpenVINO reads a Gather-7 or -8 with `batch_dims` 1 or more whose batch dims are
            all 1, and its CPU plugin compiles it, but running it crashes the process in some
            runs (a segmentation fault), not in every one (measured 2026-12-06, AMD EPYC family
            25 model 17, 2 cores, OpenVINO 2026.4.1: a Gather-8 of f32 data [1,5,3] by indices
            [1,2] on axis 1 compiled in 30 of 30 runs and crashed running in 21). Constant data,
            which OpenVINO folds, runs. Write batch_dims 0 (the same result when the batch is 1).
        """),
        wrong=_text("""
            <data batch_dims="1" />   <!-- data [1,5,3], indices [1,2], axis 1 -->
        """),
        right=_text("""
            <data batch_dims="0" />   <!-- data [1,5,3], indices [1,2], axis 1 -->
        """),
    ),
    Rule(
        code=CPU_BROADCAST_TARGET,
        name="cpu-broadcast-target",
        severity=E,
        runtime="crashes",
        summary="A Broadcast the CPU plugin crashes on, refuses or runs to another shape.",
        doc=_text("""
            The CPU plugin cannot run a Broadcast with a constant 8-bit target or
            axes_mapping ("Buffer over-read"), data of no elements (a crash), a negative
            target value (an empty axis where OpenVINO infers a dynamic one), or pdpd data
            of a higher rank than the target (garbage). Write an i32 or i64 target of
            non-negative values.
        """),
        wrong=_text("""
            <!-- target: u8 Const [2] = 2,3 -->
        """),
        right=_text("""
            <!-- target: i64 Const [2] = 2,3 -->
        """),
    ),
    Rule(
        code=CPU_BROADCAST_SCALAR_TO_EMPTY,
        name="cpu-broadcast-scalar-to-empty",
        severity=E,
        runtime="sometimes",
        summary="A scalar broadcast to an empty target: the CPU plugin crashes in some runs.",
        doc=_text("""
            A numpy or bidirectional Broadcast of a scalar to the empty target `[]` changes
            nothing. OpenVINO reads it, but the CPU plugin crashes in some runs (a
            segmentation fault) compiling it. Measured 2026-12-06 on AMD EPYC family 25 model
            17, 2 cores, OpenVINO 2026.4.1: an f32 scalar Parameter broadcast to an empty i64
            Const crashed in 30 of 30 runs; a differential fuzz on another setup saw it crash in
            42 of 60, so irpool says it crashes in some runs. Remove the layer.
        """),
        wrong=_text("""
            <!-- data [] (a Parameter); target: i64 Const [0] -->
        """),
        right=_text("""
            <!-- the scalar itself, without the Broadcast -->
        """),
    ),
    Rule(
        code=CPU_MATMUL_MULTIPLY_FUSION,
        name="cpu-matmul-multiply-fusion",
        severity=E,
        runtime="crashes",
        summary="A MatMul of rank-3+ data by a constant vector, then a Multiply by a constant.",
        doc=_text("""
            The CPU plugin folds a Multiply by a constant into the MatMul before it. For a
            MatMul whose first input has rank 3 or more and whose second is a constant
            vector (rank 1), the fusion reshapes the vector to [1, K] and compile_model
            fails ("[MatMulMultiplyFusion] ... Incompatible MatMul matrix dimension"). The
            same MatMul without the Multiply, with a Multiply by a Parameter, an Add, a
            rank-2 first input or a [K, 1] constant compiles (measured 2026-12-06, AMD EPYC
            family 25 model 17, 2 cores, OpenVINO 2026.4.1, f32, first inputs [3,4,5] and
            [2,3,4,5], Multiply by a constant of shape [] or [1], either operand order).
            Write the vector as a [K, 1] constant and squeeze the result.
        """),
        wrong=_text("""
            <!-- a [3,4,5] x Const [5] -> [3,4]; Multiply by Const [] -->
        """),
        right=_text("""
            <!-- a [3,4,5] x Const [5,1] -> [3,4,1]; Multiply by Const []; Squeeze axis 2 -->
        """),
    ),
    Rule(
        code=CPU_MATMUL_BATCHED_CONSTANT,
        name="cpu-matmul-batched-constant",
        severity=E,
        runtime="crashes",
        summary="A MatMul of dynamic 2-D data by a constant of rank 3 with a batch over 1.",
        doc=_text("""
            OpenVINO reads a MatMul whose first input has rank 2 and a dynamic dim and whose
            second is a constant of rank 3 with a first dim over 1, but the CPU plugin cannot
            compile it ("Can't create dummy inputs if argument shapes ranks are not equal"),
            whatever the transposes. Measured 2026-12-06 on AMD EPYC family 25 model 17, 2
            cores, OpenVINO 2026.4.1, f32, f16 and i32: data [?,?], [?,4] or [3,?] by
            constants [2,4,5], [3,4,5], [5,4,5] or [2,4,1] fail; static data, a constant
            [1,4,5] or of rank 2 or 4, data of rank 1 or 3, or a Parameter for the second
            input compile. Give the data a static shape, or reshape the constant to rank 4.
        """),
        wrong=_text("""
            <!-- a [?,4] x Const [2,4,5] -> [2,?,5] -->
        """),
        right=_text("""
            <!-- a [3,4] x Const [2,4,5] -> [2,3,5] -->
        """),
    ),
    Rule(
        code=CPU_SLICE_MINIMUM_STEP,
        name="cpu-slice-minimum-step",
        severity=E,
        runtime="crashes",
        summary="A Slice by a constant step at or below -2**31 whose output is not empty.",
        doc=_text("""
            OpenVINO reads a Slice-8 whose constant `step` is -2**31 (i32) or at most -2**31
            (i64), but the CPU plugin's process dies of SIGFPE: at
            compile_model when the output shape is static, at the first inference otherwise.
            Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1,
            f32 and i8 data [5], [?] and [3,5]: i32 steps -2**31 and i64 steps -2**31,
            -2**31 - 1, -3e9, -2**40, -2**63 + 1 and -2**63 crash; an output that is empty
            (start 0, stop 4, or another axis cut to 0; [?] data run empty), an i32 step of
            -2**31 + 1, i8 and i16 steps at their minimum, and constant data (folded)
            run. irpool reports the layer when no output dim can be 0. A step given at run
            time is not checked: an i32 one of -2**31 crashes at inference too, an i64 one of
            -2**63 fails there ("Step must be non-zero"). Write minus the axis length, or
            -2**31 + 1, instead: the Slice takes the same element.
        """),
        wrong=_text("""
            <!-- data f32 [5]; start 4, stop 0, step -2147483648 (i32 Consts) -> [1] -->
        """),
        right=_text("""
            <!-- data f32 [5]; start 4, stop 0, step -5 (i32 Consts) -> [1] -->
        """),
    ),
    Rule(
        code=CPU_CLAMP_FUSION_BOUNDS,
        name="cpu-clamp-fusion-bounds",
        severity=E,
        runtime="crashes",
        summary="An integer Clamp fused into the MatMul or Convolution it reads, bounds crossed.",
        doc=_text("""
            The CPU plugin runs a Clamp that is the one reader of a MatMul's, Convolution's or
            GroupConvolution's output inside that layer, as a post-op, where integer data
            rounds `min` up and `max` down. Bounds with no integer between them then cross
            (i8 min 0.5, max 0.7: 1 and 0), and compile_model fails ("could not append an
            elementwise post-op"). Measured 2026-12-06 on AMD EPYC family 25 model 17, 2
            cores, OpenVINO 2026.4.1: MatMuls (constant or Parameter weights, static or
            dynamic data) of i8, u8, i16, u16, i32, u32, i64 and u64, Convolutions and
            GroupConvolutions of i8, u8 and i32, bounds 0.5/0.7, 0.2/0.9, 0.5/0.5,
            -0.7/-0.5, -0.5/-0.5, 127.5/127.7 and 300.5/300.7 (not saturated to the type
            first) fail. They compile on f32 data (f16 too for the MatMul), with an integer
            between finite bounds (1/1, 0/0, 200.2/300.9) or an infinite bound (0.5/inf,
            -inf/-inf), for a Clamp alone or after an Add, and when a Result or another op
            reads the product too. Write integer bounds.
        """),
        wrong=_text("""
            <!-- i8 MatMul x by Const I; Clamp min="0.5" max="0.7" -->
        """),
        right=_text("""
            <!-- i8 MatMul x by Const I; Clamp min="0" max="0" -->
        """),
    ),
    Rule(
        code=CPU_INTERPOLATE_UNSUPPORTED,
        name="cpu-interpolate-unsupported",
        severity=E,
        runtime="sometimes",
        summary="An Interpolate OpenVINO reads but its CPU plugin cannot compile or run.",
        doc=_text("""
            OpenVINO reads these Interpolate layers, but its CPU plugin refuses to compile
            them or computes them wrong (measured 2026-12-06 on AMD EPYC family 25 model 17,
            2 cores, OpenVINO 2026.4.1). It cannot compile Interpolate-1 in mode `area`, or
            `linear` on a tensor of rank 6 or more ("Cannot fallback on ngraph reference
            implementation"), or with an output_shape that is not 1-D (which Interpolate-4,
            its rewrite, requires); nor a resize of axis 0 of a rank-4 tensor whose axes list
            three or four axes, or of axis 0 or 1 of a rank-5 tensor whose axes list four or
            five ("only supports resize on spatial dimensions(depth, height and width)"; axes
            [0,2] or [0,3,4] compile).

            It compiles, but computes wrong, an Interpolate-1 padding an axis it does not
            resize (`read_model` leaves those pads out of the output shape, the plugin writes
            the padded tensor past its output: the process crashed in batches), and pads on
            a tensor of rank 3 or less, on axis 0 or 1, or with a resize of axis 0 or 1 of a
            rank-4 or rank-5 tensor, which land on other axes (a [5,2,2,5,4] tensor padded by
            1 on axis 2 and resized on axes 0 and 1 comes out [2,11,2,5,6]).

            List fewer axes with axis 0, pad only the resized height and width, and write
            Interpolate-4 or -11 instead of `area`.
        """),
        wrong=_text("""
            <!-- Interpolate-1 axes="2,3" mode="area" -->
        """),
        right=_text("""
            <!-- Interpolate-11 mode="linear" shape_calculation_mode="sizes", axes 2,3 -->
        """),
    ),
    Rule(
        code=CPU_INTERPOLATE_PILLOW_AXES,
        name="cpu-interpolate-pillow-axes",
        severity=E,
        runtime="sometimes",
        summary="A Pillow-mode Interpolate resizing beyond its last two axes.",
        doc=_text("""
            The CPU plugin's `bilinear_pillow` and `bicubic_pillow` kernel resizes height and
            width only: the last two axes of a tensor of rank 2 to 4, or axes 1 and 2 of a
            tensor of rank 4 given as the axes input. Measured 2026-12-06 on AMD EPYC family
            25 model 17, 2 cores, OpenVINO 2026.4.1: resizing axis 0 of a rank-4 tensor does
            not compile ("only supports resize on spatial dimensions"); resizing axis 1 of a
            rank-4 tensor (without axis 2) or axis 0 of a rank-3 one gives undefined values
            (NaN, 1e-10, whatever memory held); rank 1 crashed the process once, rank 5 gives
            values of OpenVINO's reference code. Resize the last two axes (transpose first).
        """),
        wrong=_text("""
            <!-- data [2,3,4,5]; Interpolate-11 mode="bilinear_pillow", axes Const [1,3] -->
        """),
        right=_text("""
            <!-- data [2,3,4,5]; Interpolate-11 mode="bilinear_pillow", axes Const [2,3] -->
        """),
    ),
    Rule(
        code=CPU_INTERPOLATE_CUBIC_DEPTH,
        name="cpu-interpolate-cubic-depth",
        severity=E,
        runtime="sometimes",
        summary="A cubic Interpolate resizing a third axis: the CPU leaves it undefined.",
        doc=_text("""
            The CPU plugin's cubic kernel resizes height and width; an axis it places at
            depth is not computed, and the output holds undefined values (7e31, zeros).
            Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1:
            a rank-4 tensor resized along axis 1 with axes listing three or more (axes 1, 2, 3
            with scales 2, 1, 1.33), a rank-3 tensor along axis 0 with axes listing two or
            more. Resize at most two axes per cubic Interpolate, and list only those.
        """),
        wrong=_text("""
            <!-- data [3,4,5]; Interpolate-11 mode="cubic", axes Const [0,2] -->
        """),
        right=_text("""
            <!-- data [3,4,5]; Interpolate-11 mode="cubic", axes Const [1,2] -->
        """),
    ),
    Rule(
        code=CPU_FAKE_QUANTIZE_STRIPPED_IDENTITY,
        name="cpu-fake-quantize-stripped-identity",
        severity=E,
        runtime="crashes",
        summary="A FakeQuantize the CPU strips, between a Parameter and a Result: no compile.",
        doc=_text("""
            The CPU plugin removes a FakeQuantize of 65536 levels whose output ranges equal
            its input ones (each |output_low - input_low| and |output_high - input_high|
            below 1e-6): its output is then its input, unclamped. When a Parameter feeds such
            a FakeQuantize and a Result reads it, the removal cannot rename the Parameter and
            compile_model fails ("FQ stripping failed"). Measured 2026-12-06 on AMD EPYC
            family 25 model 17, 2 cores, OpenVINO 2026.4.1: levels 65536 with equal ranges
            (per-tensor and per-channel, and output_low 0.9e-6 away) fail; 65535, 65537,
            256 and ranges 1.1e-6 apart compile; with a ReLU before it, the FakeQuantize is
            removed. Put the layer that reads the FakeQuantize's output between it and the
            Result, or drop the FakeQuantize: the CPU computes neither.
        """),
        wrong=_text("""
            <!-- Parameter x -> FakeQuantize levels="65536" ranges -1,1,-1,1 -> Result -->
        """),
        right=_text("""
            <!-- Parameter x -> Result (the CPU strips the FakeQuantize anyway) -->
        """),
    ),
    Rule(
        code=CPU_FAKE_QUANTIZE_DECOMPOSED_BROADCAST,
        name="cpu-fake-quantize-decomposed-broadcast",
        severity=E,
        runtime="crashes",
        summary="A none or pdpd FakeQuantize the CPU decomposes into ops it cannot broadcast.",
        doc=_text("""
            The CPU plugin runs a FakeQuantize with auto_broadcast="pdpd", and one with "none"
            of 15, 16, 255 or 256 levels on float data, as element-wise ops that broadcast
            numpy's way, from the last axis, with a scalar levels - 1, and compile_model
            fails ("Argument shapes are inconsistent.") where that does not fit: under
            "none" always (the scalar), under "pdpd" for a range that aligns with the data
            from axis 0 only (a [1,3] range on [1,3,4,4] data). Measured 2026-12-06 on AMD
            EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1: "none" on f32 data [1,3,4,4],
            [1,3,1,1], [1,1,1,1], [2,3], [6], [1,3,4] and [1,2,3,4,5] at 256 levels fails
            (f16 and bf16 too), on [2,3] at 15, 16, 255 and 256 of levels 0 to 4, 15 to 17,
            255 to 257, 1000 and 65535; on u8, i8 and i32 data it compiles; "pdpd" [1,3]
            ranges on [1,3,4,4] data fail at every level tried, [], [1], [1,3,1,1],
            [1,1,1,4], [1,3,4,1], [1,1,4,4] and [1,3,4,4] compile. Write
            auto_broadcast="numpy" and ranges of the data's rank: the values are the same.
        """),
        wrong=_text("""
            <!-- FakeQuantize levels="256" auto_broadcast="none", data and ranges [1,3,1,1] -->
        """),
        right=_text("""
            <!-- FakeQuantize levels="256" auto_broadcast="numpy", data and ranges [1,3,1,1] -->
        """),
    ),
    Rule(
        code=CPU_FAKE_QUANTIZE_INTEGER_DATA,
        name="cpu-fake-quantize-integer-data",
        severity=E,
        runtime="crashes",
        summary="A FakeQuantize on integer data the CPU's low-precision pass cannot take.",
        doc=_text("""
            A FakeQuantize of 15, 16, 255 or 256 levels (of any data) turns the CPU plugin's
            low-precision pass on for the whole model; that pass refuses every FakeQuantize
            on i16, u16, i32, u32, i64 or u64 data, and on i8 data one of other levels
            (0 aside): compile_model fails ("unexpected levels 256 for precision i32",
            "unexpected levels 3 for precision i8"). Measured 2026-12-06 on AMD EPYC family 25
            model 17, 2 cores, OpenVINO 2026.4.1: such a FakeQuantize alone (levels 2 to 299,
            511, 512, 1023, 1024, 4095, 4096 and 65533 to 65536) fails at 15, 16, 255 and
            256 levels only; beside an f32, i8 or u8 FakeQuantize of those levels an i32 one
            fails at every level tried, an i8 one at 1, 2, 3, 4, 17, 257, 1000 and 65535 and
            more; beside one of 2, 3, 4, 17, 257, 1000 or 65535 to 65537 levels, all
            compile. u8, f16, bf16 and f32 data compile. Convert the data to f32 first.
        """),
        wrong=_text("""
            <!-- Parameter i32 [1,3,4,4] -> FakeQuantize levels="256" -->
        """),
        right=_text("""
            <!-- Parameter i32 [1,3,4,4] -> Convert to f32 -> FakeQuantize levels="256" -->
        """),
    ),
    Rule(
        code=CPU_BACKPROP_ONE_GROUP,
        name="cpu-backprop-one-group",
        severity=E,
        runtime="crashes",
        summary="A GroupConvolutionBackpropData of one group with several channels.",
        doc=_text("""
            OpenVINO reads a GroupConvolutionBackpropData whose filters have one group
            ([1, C, O, *kernel]), but its CPU plugin cannot compile it unless C and O are
            both 1 ("could not create a primitive descriptor for the deconvolution forward
            propagation primitive"): it takes a layer of one group for an ungrouped one and
            misreads the filters' dims. Measured 2026-12-06 on AMD EPYC family 25 model 17,
            2 cores, OpenVINO 2026.4.1: 1-D, 2-D and 3-D layers of f32, f16, f64, i8 and u8,
            constant and Parameter filters, with and without output_shape; C = O = 1
            compiles and equals ConvolutionBackpropData. Write a ConvolutionBackpropData with
            the filters [C, O, *kernel] instead: it computes the same.
        """),
        wrong=_text("""
            <!-- GroupConvolutionBackpropData: data [1,2,5]; filters Const [1,2,3,4] -->
        """),
        right=_text("""
            <!-- ConvolutionBackpropData: data [1,2,5]; filters Const [2,3,4] -->
        """),
    ),
    Rule(
        code=CPU_STRIDED_SLICE_SHRINK_OUT_OF_RANGE,
        name="cpu-strided-slice-shrink-out-of-range",
        severity=E,
        runtime="crashes",
        summary="A StridedSlice that shrinks an axis at a begin outside it.",
        doc=_text("""
            OpenVINO reads a StridedSlice whose `shrink_axis_mask` takes an axis at a
            constant `begin` outside [-dim, dim - 1] (`read_model` drops the axis whatever
            the index), but its CPU plugin cannot compile it ("Check 'begin >=
            -(int64_t(input_shape[i_in])) && begin < int64_t(input_shape[i_in])' failed").
            The begin is checked even where `begin_mask` makes the runtime take index 0.
            Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1.
            Write an index within the axis.
        """),
        wrong=_text("""
            <!-- data [4]; begin Const [7]; end Const [1]; shrink_axis_mask="1" -->
        """),
        right=_text("""
            <!-- data [4]; begin Const [3]; end Const [1]; shrink_axis_mask="1" -->
        """),
    ),
    Rule(
        code=CPU_BACKPROP_DYNAMIC_SHAPE,
        name="cpu-backprop-dynamic-shape",
        severity=E,
        runtime="crashes",
        summary="A (Group)ConvolutionBackpropData with shapes its CPU node cannot take dynamic.",
        doc=_text("""
            The CPU plugin's deconvolution node needs static shapes where `read_model` takes
            dynamic ones, and refuses to compile:
            - `filters` or `output_shape` of a dynamic shape ("Doesn't support dynamic shapes
              for 'weights' and 'output_shape' inputs"); their values may come at run time;
            - static data and filters with an output that is not static: an `output_shape`
              computed at run time (a Parameter, a subgraph OpenVINO does not fold) with
              wholly static data ("Destination memory is undefined"), or pads larger than
              the transposed convolution's extent on static spatial dims, which `read_model`
              makes a dynamic dim ("Can't clone desc if new dims are undefined").
            Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1:
            with the data's batch or a spatial dim dynamic a run-time `output_shape` compiles
            and is taken at run time. Give output_shape as a Const, make the data dynamic, or
            lower the pads.
        """),
        wrong=_text("""
            <!-- data Parameter [1,3,4,4]; output_shape Parameter [2] -->
        """),
        right=_text("""
            <!-- data Parameter [?,3,4,4]; output_shape Parameter [2] -->
        """),
    ),
    Rule(
        code=CPU_PRELU_SLOPE_SHAPE,
        name="cpu-prelu-slope-shape",
        severity=E,
        runtime="crashes",
        summary="A PReLU slope the CPU plugin can apply neither per channel nor by broadcast.",
        doc=_text("""
            `read_model` takes a PReLU slope of any shape, but the CPU plugin applies only a
            slope of one element, a 1-D slope as long as the data's dim 1 (along axis 1, even
            where it also matches the last dim), or a slope that broadcasts numpy-wise onto
            the data without growing it; for data that is a scalar or ends in a dim of 1 it
            takes the slope's last value, except for i32 and i64 data (u32 and u64 are held
            as them). Any other slope (`[4]` for data `[2,3,4,5]`, `[2]` for `[2,3]`,
            `[1,3,4,5,1]` for `[2,3,4,5]`, `[2]` for i32 `[5,3,1]`) fails compile_model. Measured
            2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1. Give the
            slope one value per channel of axis 1, or a shape that broadcasts.
        """),
        wrong=_text("""
            <!-- PReLU of data [2,3,4,5] by a slope of shape [4] -->
        """),
        right=_text("""
            <!-- PReLU of data [2,3,4,5] by a slope of shape [3] (one per channel) -->
        """),
    ),
    Rule(
        code=CPU_GRID_SAMPLE_EMPTY_DATA,
        name="cpu-grid-sample-empty-data",
        severity=E,
        runtime="sometimes",
        summary="A GridSample of data with an empty H or W axis: the CPU plugin writes nothing.",
        doc=_text("""
            OpenVINO reads a GridSample-9 whose data has no rows or no columns (H or W is 0)
            and infers its output [N, C, H_out, W_out] from the grid, which need not be
            empty. Its CPU plugin compiles and runs the layer but never writes that output:
            each inference returns what the memory held (1.2e25, 3.1e-41, 0, ... for a data
            of ones, measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores, OpenVINO
            2026.4.1, every mode and padding_mode). There is nothing to sample: give the data
            at least one row and one column, or remove the layer.
        """),
        wrong=_text("""
            <!-- data f32 [1,2,0,2]; grid f32 [1,2,2,2] -> [1,2,2,2] -->
        """),
        right=_text("""
            <!-- data f32 [1,2,1,2]; grid f32 [1,2,2,2] -> [1,2,2,2] -->
        """),
    ),
    Rule(
        code=CPU_TILE_NEGATIVE_REPEAT,
        name="cpu-tile-negative-repeat",
        severity=E,
        runtime="sometimes",
        summary="A Tile by a negative constant repeat: the CPU plugin crashes on some shapes.",
        doc=_text("""
            OpenVINO reads a Tile-1 repeat below 0 as 0 (the output axis is empty), and its
            CPU plugin runs many such layers, but on others its process dies (SIGSEGV, once
            SIGBUS) at the first inference. Measured 2026-12-06 on AMD EPYC family 25 model
            17, 2 cores, OpenVINO 2026.4.1, f32 data: repeats [-1] on [1] and [], [2,-1] on
            [1,1] and [1], [1,-1] on [2,1], [-1,3] on [1], [-1,1] on [1,1], [1,-1,1] and
            [1,1,-1] on [3,1,1] crash; [-1] on [2], [-1,2] on [1,2], [3,-1] on [3], [-1,1] on
            [2,1], [1,-1,2] on [1,1,1] and [2,1,1] run (it happens where the negative repeat
            meets dims of 1, not always). Repeats given at run time crash the same way and
            are not checked. Write 0: the output is the same.
        """),
        wrong=_text("""
            <!-- data f32 [1]; Tile repeats [-1] (i64 Const) -> [0] -->
        """),
        right=_text("""
            <!-- data f32 [1]; Tile repeats [0] (i64 Const) -> [0] -->
        """),
    ),
    Rule(
        code=CPU_CUMSUM_AXIS,
        name="cpu-cumsum-axis",
        severity=E,
        runtime="sometimes",
        summary="A CumSum axis the CPU plugin does not take: not a scalar, or out of range.",
        doc=_text("""
            OpenVINO reads a CumSum-3 whose `axis` has any rank and any value (its shape
            inference does not read it), but the CPU plugin takes only a scalar axis in
            [-rank, rank-1] (a scalar data counting as rank 1). Measured 2026-12-06 on AMD
            EPYC family 25 model 17, 2 cores, OpenVINO 2026.4.1, f32 data [2,3]: axes [1] and
            [[1]] fail to compile ("doesn't support 'axis' input tensor with non scalar
            rank"); axes 2, 5 and -3 compile, then an inference on two threads fails ("has
            axis with a value out of range") and one on a single thread
            (`INFERENCE_NUM_THREADS` 1) returns values it never computed (7.4e22, 3.07e-41,
            ... for zeros); -1 runs. Write the axis as a scalar within the data's rank.
        """),
        wrong=_text("""
            <!-- data f32 [2,3]; CumSum axis [1] (i64 Const of shape [1]) -->
        """),
        right=_text("""
            <!-- data f32 [2,3]; CumSum axis 1 (i64 Const of shape []) -->
        """),
    ),
    Rule(
        code=CPU_TOPK_K_RANGE,
        name="cpu-topk-k-range",
        severity=E,
        runtime="crashes",
        summary="A TopK whose constant k is 0 or beyond its axis: the CPU plugin refuses it.",
        doc=_text("""
            OpenVINO reads a TopK (-1, -3, -11) whose constant `k` is 0 or larger than the
            axis (the output axis then has k elements), but its CPU plugin takes only k in
            [1, axis length]: with static shapes compile_model fails ("K (7) exceeds the axis
            dimension (5).", "K (0) must be greater or equal to 1."), with a dynamic axis the
            inference does. Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores,
            OpenVINO 2026.4.1, f32 data [2,5] and [?,5] over axis 1, k 7 and 0 (and k given at
            run time: 0 and 7 fail there). Write k within the axis.
        """),
        wrong=_text("""
            <!-- data f32 [2,5]; TopK axis 1, k 7 (i64 Const) -->
        """),
        right=_text("""
            <!-- data f32 [2,5]; TopK axis 1, k 5 (i64 Const) -->
        """),
    ),
    Rule(
        code=CPU_UNPAIRED_VARIABLE_LAYER,
        name="cpu-unpaired-variable-layer",
        severity=E,
        runtime="fails",
        summary="A ReadValue or Assign the CPU plugin pairs with no partner: inference fails.",
        doc=_text("""
            The CPU plugin pairs each ReadValue with exactly one Assign of its variable.
            read_model takes a model where that is not possible and the plugin compiles
            it, but the first inference fails on the layer left over: a ReadValue whose
            variable no Assign writes, or a second ReadValue of a variable ("ReadValue
            node with name 'cache' doesn't have sibling output"), or a second Assign of
            a variable ("Assign node with name 'store_1' uninitialized assigned
            memory"). Measured 2026-12-06 on AMD EPYC family 25 model 17, 2 cores,
            OpenVINO 2026.4.1: ReadValue-3 and -6, with and without initializer, equal
            or different declarations. A ReadValue no Result needs is dropped and fails
            nothing. Read and assign each variable once.
        """),
        wrong=_text("""
            <layer id="2" name="cache" type="ReadValue" version="opset6">
              <data variable_id="past" variable_type="f32" variable_shape="1,2" />
            <!-- no Assign of "past" -->
        """),
        right=_text("""
            <layer id="4" name="store" type="Assign" version="opset6">
              <data variable_id="past" />
        """),
    ),
    Rule(
        code=CPU_VARIABLE_ELEMENT_TYPE,
        name="cpu-variable-element-type",
        severity=E,
        runtime="fails",
        summary="A variable of a type the CPU plugin holds in no state: it fails at inference.",
        doc=_text("""
            The CPU plugin keeps a variable in oneDNN memory, which has no i64, u64,
            i16, u16, u32 or f64. read_model takes a ReadValue of such a variable and
            the plugin compiles it, but the first inference fails ("CPU plugin does not
            support i64 for use with oneDNN"). Measured 2026-12-06 on AMD EPYC family 25
            model 17, 2 cores, OpenVINO 2026.4.1: f32, f16, i32, i8, u8 and boolean
            variables run. Convert the data to i32 (or f32) before the Assign and after
            the ReadValue.
        """),
        wrong=_text("""
            <data variable_id="step" variable_type="i64" variable_shape="1" />
        """),
        right=_text("""
            <data variable_id="step" variable_type="i32" variable_shape="1" />
        """),
    ),
    Rule(
        code=CPU_VARIABLE_DYNAMIC_RANK,
        name="cpu-variable-dynamic-rank",
        severity=E,
        runtime="crashes",
        summary="A ReadValue-6 variable of dynamic rank: the CPU plugin cannot compile it.",
        doc=_text("""
            A ReadValue-6 whose `variable_shape` is `...` (or absent while
            `variable_type` is written) declares a variable of dynamic rank. read_model
            takes it; compile_model fails ("CPU plug-in doesn't support ReadValue
            operation with dynamic rank"). Measured 2026-12-06 on AMD EPYC family 25
            model 17, 2 cores, OpenVINO 2026.4.1, with and without initializer. Write
            the variable's rank, with `?` for the dims that change.
        """),
        wrong=_text("""
            <data variable_id="v" variable_type="f32" variable_shape="..." />
        """),
        right=_text("""
            <data variable_id="v" variable_type="f32" variable_shape="?,2" />
        """),
    ),
    Rule(
        code=CPU_DETECTION_OUTPUT_DECREASED_BACKGROUND,
        name="cpu-detection-output-decreased-background",
        severity=E,
        runtime="crashes",
        summary="A DetectionOutput with decrease_label_id and a background other than 0.",
        doc=_text("""
            With `decrease_label_id` (MXNet's style: one class per prior, labels counted
            from class 1) the CPU plugin takes class 0 as the background. read_model takes
            any `background_label_id`, but the plugin refuses one other than 0 ("cannot use
            decrease_label_id and background_label_id parameter simultaneously."): with
            static shapes compile_model fails. Measured 2026-12-06 on AMD EPYC family 25
            model 17, 2 cores, OpenVINO 2026.4.1. Write background_label_id="0".
        """),
        wrong=_text("""
            <data decrease_label_id="true" background_label_id="1" keep_top_k="-1" />
        """),
        right=_text("""
            <data decrease_label_id="true" background_label_id="0" keep_top_k="-1" />
        """),
    ),
    Rule(
        code=CPU_DETECTION_OUTPUT_CLEARS_PAST_OUTPUT,
        name="cpu-detection-output-clears-past-output",
        severity=E,
        runtime="sometimes",
        summary="A DetectionOutput the CPU plugin clears beyond its output: memory is corrupted.",
        doc=_text("""
            With keep_top_k 0 or below -1 and top_k above 0, OpenVINO's shape inference
            gives the output N * P * C rows (N images, P priors, C classes), but the CPU
            plugin clears N * top_k * C rows of it before writing the detections. With
            top_k above P it writes zeros past the end of its output buffer: a later
            inference or compilation in the same process crashes (a segmentation fault
            after a few layers so built, measured). Measured 2026-12-06 on AMD EPYC family
            25 model 17, 2 cores, OpenVINO 2026.4.1. Write keep_top_k -1 (every detection)
            or a count above 0, or top_k at most the number of priors.
        """),
        wrong=_text("""
            <!-- 1 prior, 3 classes -->
            <data keep_top_k="0" top_k="100" normalized="true" />
        """),
        right=_text("""
            <data keep_top_k="-1" top_k="100" normalized="true" />
        """),
    ),
)

RULES: dict[str, Rule] = {rule.code: rule for rule in _RULES}
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in _RULES}

# Selectors that name a family of rules, in configs, inline suppressions and `irpool rule`:
# "IR214" and "compile-crash" name every CPU refusal (IR6xx), each cause its own rule.
FAMILIES: dict[str, frozenset[str]] = {
    alias: frozenset(code for code in RULES if code.startswith("IR6"))
    for alias in ("IR214", "compile-crash")
}
