"""``textqa verify``: hash every payload of artifacts and collections against their manifests."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from textqa.errors import InputError

HELP = "check every file of artifacts or collections against their manifests' checksums"
DESCRIPTION = """Hash every payload file of each artifact (or QA collection) folder and compare it with the
sha256 its manifest records, whatever earlier loads remembered: a load hashes a file only when its
identity (device, inode, size, modification and status-change times) is not one already found good.
A folder name alone is looked up under the artifacts root ('textqa verify truecaser').
Exit status 0 when every file matches, 1 when one does not, 2 when a folder is no artifact."""


def add_arguments(p) -> None:
    p.add_argument("paths", nargs="+", metavar="ARTIFACT",
                   help="artifact or collection folders (or names under the artifacts root)")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root for names (default: $TEXTQA_ARTIFACTS or ./artifacts)")


def _folder(name: str, root: Path) -> Path:
    path = Path(name)
    return path if path.exists() or len(path.parts) > 1 else root / name


def run(args) -> int:
    from textqa.models.artifact import MANIFEST, ArtifactError, read_manifest, verify_and_remember
    from textqa.models.checked_files import CheckedFiles
    from textqa.runtime.paths import artifacts_dir

    root = args.artifacts or artifacts_dir()
    checked = CheckedFiles.default()
    status = 0
    for name in args.paths:
        folder = _folder(name, root)
        try:
            manifest = read_manifest(folder)
            files = manifest.get("files")
            if not isinstance(files, dict):
                raise ArtifactError(f"{folder / MANIFEST}: manifest lacks 'files'")
        except ArtifactError as e:
            raise InputError(str(e)) from None
        start, size, bad = time.perf_counter(), 0, []
        for rel in files:
            try:
                size += verify_and_remember(folder, manifest, rel, checked, remedy="retrain or rebuild it")
            except (ArtifactError, OSError) as e:
                bad.append(str(e))
        checked.save()
        what = f"{manifest.get('name', '?')} {folder}"
        if bad:
            status = 1
            print(f"FAILED {what}: {len(bad)} of {len(files)} files", file=sys.stderr)
            for line in bad:
                print(f"  {line}", file=sys.stderr)
        else:
            print(f"ok {what}: {len(files)} files, {size / 1e6:,.1f} MB hashed in "
                  f"{time.perf_counter() - start:.1f} s")
    return status
