# Room `textbook`: the identification course (notebooks/textbook, planar arm twin), and the static site.
#
#   notebooks/textbook/NN_*.ipynb (papermill, -f params) -> results/textbook/notebooks, results/textbook/*.json,
#       figures/textbook/*.png|svg, results/textbook/views/*.html (slider views)
#   -> results/textbook/paper_comparison.{csv,md}                          (target `textbook`: the course alone)
#   -> results/book/ (Sphinx + MyST-NB: the course and every room found under results/<slug>/, figures/<slug>/)
#                                                                          (target `book`, and `all`)
#
# Recordings: the lessons that measure something on the planar arm twin obtain each recording through
# paperlib.experiments.textbook.lab.Lab (the kit's RecordingSource): with the twin (default) they are made now and
# kept in results/textbook/recordings/<lesson>-<what>.nc (what `paperlib archive pack textbook` releases); with
# --source archive (SOURCE, ARCHIVE) they are copied from the release and no twin code runs.
#
# Configuration: config/textbook.yaml, with the run configuration's `textbook:` section merged over it.
# `book.papers` (or --config book_papers=...): "all" makes the site wait for every room's targets
# (PAPER_TARGETS), so `make reproduce` builds the whole site in one pass; "existing" builds it from
# whatever is there now (config/textbook_only.yaml: a fast site of what exists).

from paperlib.experiments.textbook import pipeline as TB_P

TB_CFG = TB_P.load_config("config/textbook.yaml", _RUN_CFG.get("textbook"))
TB_RES = f"{RESULTS}/textbook"
TB_FIG = f"{FIGURES}/textbook"
TB_NOTEBOOKS = TB_P.notebooks(TB_CFG)
TB_BOOK = f"{RESULTS}/book/index.html"
TB_BOOK_PAPERS = config.get("book_papers") or TB_CFG["book"]["papers"]
if TB_BOOK_PAPERS not in ("all", "existing"):
    raise ValueError(f"textbook: book papers must be 'all' or 'existing', got {TB_BOOK_PAPERS!r}")


def _tb_outputs(nb):
    spec = TB_CFG["notebooks"][nb]
    return {
        "executed": f"{TB_RES}/notebooks/{nb}.ipynb",
        "results": f"{TB_RES}/{nb}.json",
        "figures": [f"{TB_FIG}/{nb}_{f}.{ext}" for f in spec.get("figures", []) for ext in ("png", "svg", "json")],
        "views": [f"{TB_RES}/views/{nb}_{v}.{ext}" for v in spec.get("views", []) for ext in ("html", "json")],
    }


TB_COURSE = [p for nb in TB_NOTEBOOKS for k, v in _tb_outputs(nb).items() for p in ([v] if isinstance(v, str) else v)]
PAPER_TARGETS["textbook"] = TB_COURSE + [f"{TB_RES}/paper_comparison.csv", f"{TB_RES}/paper_comparison.md"]
SITE_TARGETS.append(TB_BOOK)
room_table("textbook", res=TB_RES)


for _nb in TB_NOTEBOOKS:
    _o = _tb_outputs(_nb)
    room_notebook("textbook", _nb, res=TB_RES, notebook=f"{TB_P.NOTEBOOK_DIR}/{_nb}.ipynb",
                  params=TB_P.notebook_params(TB_CFG, _nb, results_dir=TB_RES, figures_dir=TB_FIG,
                                              source=SOURCE, archive=ARCHIVE),
                  outputs={"figures": _o["figures"], "views": _o["views"]})


def _tb_book_inputs(wc):
    """The course, its table, the site's code and (book.papers: all) every other room's targets."""
    out = TB_COURSE + [f"{TB_RES}/paper_comparison.md"] + TB_P.book_code_inputs()
    if TB_BOOK_PAPERS == "all":
        out += [t for slug, ts in PAPER_TARGETS.items() if slug != "textbook" for t in ts]
        out += [c.replace(".csv", ".md") for slug, c in COMPARISONS.items() if slug != "textbook"]
    return out


# The whole site: `paperlib reproduce` (rule all) or `snakemake book`; `paperlib reproduce textbook` is the course alone.
use rule book from common as book with:
    input:
        _tb_book_inputs,
    output:
        TB_BOOK,
    params:
        results=RESULTS,
        figures=FIGURES,
    log:
        f"{RESULTS}/logs/book.log",
