"""``CITATION.cff`` (Citation File Format 1.2.0) and ``.zenodo.json`` (Zenodo deposition metadata):
written for a release, and checked.

The checks are those of the formats' required fields and of the values this package writes; they
do not replace the formats' full schemas (cffconvert, Zenodo's own validation on upload).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["ReleaseInfo", "cff_authors", "citation_text", "zenodo_metadata", "check_citation", "check_zenodo",
           "CFF_REQUIRED", "CFF_SPEC_REQUIRED", "ZENODO_REQUIRED", "ZENODO_RELATIONS"]

CFF_VERSION = "1.2.0"
#: The keys a CITATION.cff of a release must have (those CFF 1.2.0 requires, and the release's own).
CFF_REQUIRED = ("cff-version", "message", "title", "authors", "version", "date-released", "license")
#: The keys the Citation File Format 1.2.0 itself requires of every CITATION.cff (the repository's own, too).
CFF_SPEC_REQUIRED = ("cff-version", "message", "title", "authors")
#: The keys a .zenodo.json of a release must have (Zenodo's required deposition fields, DataCite's
#: mandatory properties: creators, title, publication year, resource type; and related identifiers).
ZENODO_REQUIRED = ("title", "upload_type", "creators", "description", "license", "publication_date",
                   "access_right", "version", "related_identifiers")
#: Relation types Zenodo accepts in related_identifiers (DataCite relationType, Zenodo spelling).
ZENODO_RELATIONS = frozenset({
    "isCitedBy", "cites", "isSupplementTo", "isSupplementedBy", "isContinuedBy", "continues", "isDescribedBy",
    "describes", "hasMetadata", "isMetadataFor", "isNewVersionOf", "isPreviousVersionOf", "isPartOf", "hasPart",
    "isReferencedBy", "references", "isDocumentedBy", "documents", "isCompiledBy", "compiles", "isVariantFormOf",
    "isOriginalFormOf", "isIdenticalTo", "isAlternateIdentifier", "isReviewedBy", "reviews", "isDerivedFrom",
    "isSourceOf", "requires", "isRequiredBy", "isObsoletedBy", "obsoletes",
})

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DOI = re.compile(r"^10\.\d{4,9}(\.\d+)?/\S+$")  # the pattern of CFF 1.2.0's schema for a DOI
_SPDX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+-]*$")


@dataclass(frozen=True)
class ReleaseInfo:
    """What the citation and the deposition say about a release."""

    title: str
    authors: tuple[str, ...]  # "Family, Given" for a person, anything else for an organisation
    version: str
    date: str  # YYYY-MM-DD
    abstract: str
    licenses: tuple[str, ...]  # SPDX ids, the release's own first
    keywords: tuple[str, ...]
    commit: str | None  # the commit the build ran at, when the outputs agree on one
    related: tuple[dict[str, str], ...]  # Zenodo related_identifiers entries


def cff_authors(authors: Sequence[str]) -> list[dict[str, str]]:
    """CFF person (``family-names``, ``given-names``) for ``"Family, Given"``, else an entity (``name``)."""
    out = []
    for a in authors:
        family, sep, given = a.partition(",")
        if sep and family.strip() and given.strip():
            out.append({"family-names": family.strip(), "given-names": given.strip()})
        else:
            out.append({"name": a.strip()})
    return out


def citation_text(info: ReleaseInfo) -> str:
    """The CITATION.cff of a release (YAML, keys in the order CFF documents them)."""
    import yaml

    doc: dict[str, Any] = {
        "cff-version": CFF_VERSION,
        "message": "If you use these recordings, please cite them as below, and the papers they reproduce.",
        "type": "dataset",
        "title": info.title,
        "authors": cff_authors(info.authors),
        "version": info.version,
        "date-released": info.date,
        "license": list(info.licenses) if len(info.licenses) > 1 else info.licenses[0],
        "abstract": info.abstract,
        "keywords": list(info.keywords),
    }
    if info.commit:
        doc["commit"] = info.commit
    return "# Citation File Format 1.2.0 (https://citation-file-format.github.io), written by paperlib archive pack\n" + \
        yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def zenodo_metadata(info: ReleaseInfo, description_html: str) -> dict[str, Any]:
    """The ``.zenodo.json`` deposition metadata of a release."""
    from paperlib.archive.layout import ZENODO_LICENSE

    creators = []
    for a in cff_authors(info.authors):
        creators.append({"name": f"{a['family-names']}, {a['given-names']}"} if "family-names" in a else {"name": a["name"]})
    others = [lic for lic in info.licenses[1:]]
    notes = ("Recordings imported from third-party data keep their own licence: " + ", ".join(others) +
             " (see README.md).") if others else ""
    out: dict[str, Any] = {
        "title": info.title,
        "upload_type": "dataset",
        "creators": creators,
        "description": description_html,
        "access_right": "open",
        "license": ZENODO_LICENSE.get(info.licenses[0], info.licenses[0].lower()),
        "publication_date": info.date,
        "version": info.version,
        "keywords": list(info.keywords),
        "related_identifiers": [dict(r) for r in info.related],
    }
    if notes:
        out["notes"] = notes
    return out


def _date_ok(value: Any) -> bool:
    if isinstance(value, _dt.date):  # YAML reads an unquoted date as a date
        return True
    if not isinstance(value, str) or not _DATE.match(value):
        return False
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _read_mapping(path: Path, kind: str) -> tuple[dict[str, Any] | None, list[str]]:
    """A metadata file's document (``kind`` "YAML" or "JSON") if it is a mapping, else None and the fault."""
    import yaml

    load, errors = (yaml.safe_load, (yaml.YAMLError,)) if kind == "YAML" else (json.loads, (json.JSONDecodeError,))
    try:
        doc = load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, *errors) as exc:
        return None, [f"{path}: cannot be read as {kind} ({exc})"]
    if not isinstance(doc, dict):
        return None, [f"{path}: not a {kind} mapping"]
    return doc, []


def _key_faults(path: Path, doc: dict[str, Any], required: Sequence[str], strings: Sequence[str]) -> list[str]:
    """The required keys missing, and the keys of ``strings`` present but not non-empty strings."""
    faults = [f"{path}: missing key {k!r}" for k in required if k not in doc]
    return faults + [f"{path}: {k!r} must be a non-empty string" for k in strings
                     if k in doc and (not isinstance(doc[k], str) or not doc[k].strip())]


def _people_faults(path: Path, doc: dict[str, Any], key: str, named: Callable[[dict[str, Any]], bool],
                   lacks: str) -> list[str]:
    """``doc[key]`` (authors, creators), when present, must be a non-empty list of mappings each ``named``."""
    if key not in doc:
        return []
    people = doc[key]
    if not isinstance(people, list) or not people:
        return [f"{path}: {key!r} must be a non-empty list"]
    return [f"{path}: {key[:-1]} #{i + 1} has {lacks}" for i, p in enumerate(people)
            if not (isinstance(p, dict) and named(p))]


def check_citation(path: Path, required: Sequence[str] = CFF_REQUIRED) -> list[str]:
    """Faults of a CITATION.cff (empty when well-formed): YAML, the required keys and their types.

    Parameters
    ----------
    path : Path
        The file.
    required : sequence of str
        Keys it must have: a release's (:data:`CFF_REQUIRED`, the default) or, for the repository's
        own file, those of the format (:data:`CFF_SPEC_REQUIRED`). Keys present are checked either way.
    """
    doc, faults = _read_mapping(path, "YAML")
    if doc is None:
        return faults
    faults = _key_faults(path, doc, required, ("message", "title"))
    if "cff-version" in doc and str(doc["cff-version"]) != CFF_VERSION:
        faults.append(f"{path}: cff-version {doc['cff-version']!r} is not {CFF_VERSION!r}")
    if "version" in doc and (not isinstance(doc["version"], (str, int, float)) or not str(doc["version"]).strip()):
        faults.append(f"{path}: 'version' must be a string or a number")
    if "date-released" in doc and not _date_ok(doc["date-released"]):
        faults.append(f"{path}: date-released {doc['date-released']!r} is not a date YYYY-MM-DD")
    faults += _people_faults(path, doc, "authors", lambda a: bool(str(a.get("name", "")).strip() or
                                                                  str(a.get("family-names", "")).strip()),
                             "neither 'name' (entity) nor 'family-names' (person)")
    if "license" in doc:
        lic = doc["license"]
        ids = lic if isinstance(lic, list) else [lic]
        if not ids or not all(isinstance(x, str) and _SPDX.match(x) for x in ids):
            faults.append(f"{path}: license {lic!r} is not an SPDX identifier or a list of them")
    if "doi" in doc and not (isinstance(doc["doi"], str) and _DOI.match(doc["doi"])):
        faults.append(f"{path}: doi {doc['doi']!r} is not a DOI (10.NNNN/...)")
    if "keywords" in doc and not (isinstance(doc["keywords"], list) and
                                  all(isinstance(k, str) and k.strip() for k in doc["keywords"])):
        faults.append(f"{path}: 'keywords' must be a list of non-empty strings")
    if doc.get("type", "dataset") not in ("dataset", "software"):
        faults.append(f"{path}: type {doc['type']!r} is not 'dataset' or 'software'")
    return faults


def check_zenodo(path: Path) -> list[str]:
    """Faults of a release's .zenodo.json (empty when well-formed)."""
    doc, faults = _read_mapping(path, "JSON")
    if doc is None:
        return faults
    faults = _key_faults(path, doc, ZENODO_REQUIRED, ("title", "description", "license", "version"))
    if "upload_type" in doc and doc["upload_type"] != "dataset":
        faults.append(f"{path}: upload_type {doc['upload_type']!r} is not 'dataset'")
    if "access_right" in doc and doc["access_right"] not in ("open", "embargoed", "restricted", "closed"):
        faults.append(f"{path}: access_right {doc['access_right']!r} is not one Zenodo knows")
    if "publication_date" in doc and not (isinstance(doc["publication_date"], str) and _date_ok(doc["publication_date"])):
        faults.append(f"{path}: publication_date {doc['publication_date']!r} is not a date YYYY-MM-DD")
    faults += _people_faults(path, doc, "creators", lambda c: isinstance(c.get("name"), str) and bool(c["name"].strip()),
                             "no 'name'")
    if "related_identifiers" in doc:
        rel = doc["related_identifiers"]
        if not isinstance(rel, list):
            faults.append(f"{path}: 'related_identifiers' must be a list")
        else:
            for i, r in enumerate(rel):
                if not isinstance(r, dict) or not isinstance(r.get("identifier"), str) or not r["identifier"].strip():
                    faults.append(f"{path}: related identifier #{i + 1} has no 'identifier'")
                elif r.get("relation") not in ZENODO_RELATIONS:
                    faults.append(f"{path}: related identifier #{i + 1}: relation {r.get('relation')!r} is not a "
                                  "DataCite relation type")
    return faults
