"""A reproducible mutation score for the pure modules (`make mutation`).

Cosmic Ray lists and applies the mutants; this script picks a held-out sample of them
with a fixed seed, so two runs on the same source (before and after new tests) judge the
same mutants, runs each module's own fast tests against each, and prints each module's
score with every surviving mutant.

For each module it:

1. copies the project (the working tree's tracked and new files, or `--at` a commit's)
   to a scratch folder, since a mutant is written to the file on disk;
2. lists every mutant (`cosmic-ray init`), less the operators in `EXCLUDED`;
3. keeps `--sample` of them, drawn with `random.Random(--seed)` from the list sorted by
   place and operator (the same source gives the same draw);
4. runs the module's tests (`MODULES`) against each mutant in a process forked from
   this one, which has imported pytest and the libraries already: most of a test
   run's time is those imports. A mutant is killed when a test fails or the run
   passes the timeout; it survives when every test passes.

Usage: `python scripts/mutation.py [--seed N] [--sample N] [--at COMMIT] [--tests-at COMMIT]
[module.py ...]`.
"""

import argparse
import contextlib
import importlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cosmic_ray.mutating import use_mutation
from cosmic_ray.plugins import get_operator
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

ROOT = Path(__file__).resolve().parent.parent

# Each pure module and the tests that judge it: its own unit tests, none that needs a
# browser or runs for long (the property tests draw new examples each run). A file an
# older commit does not have yet is left out when measuring that commit.
MODULES: dict[str, list[str]] = {
    "roster/documents.py": [
        "tests/roster/test_documents.py",
        "tests/roster/test_document_limits.py",
        "tests/roster/test_engine.py",
        "tests/roster/test_engine_boundaries.py",
    ],
    "campaign/progression.py": [
        "tests/campaign/test_progression.py",
        "tests/campaign/test_progression_boundaries.py",
    ],
    "roster/engine.py": [
        "tests/roster/test_engine.py",
        "tests/roster/test_engine_boundaries.py",
        "tests/roster/test_engine_rules.py",
        "tests/roster/test_rolls.py",
    ],
    # A package: its files' mutants are drawn as one sample.
    "play/table": [
        "tests/play/test_table.py",
        "tests/play/test_table_outcomes.py",
        "tests/play/test_table_rules.py",
        "tests/play/test_dice_commitment.py",
        "tests/play/test_spell_attack_rules.py",
        "tests/play/test_table_boundaries.py",
        "tests/play/test_table_refusals.py",
    ],
}

# Operators whose mutants are noise here: `|` in type hints and `isinstance` turned into
# `&` or `<<` fails at import; a removed `@dataclass` fails everywhere. They would only
# make a score look better.
EXCLUDED = [
    r"core/ReplaceBinaryOperator_(Pow|LShift|RShift|BitOr|BitAnd|BitXor|Mod)_.*",
    r"core/ReplaceBinaryOperator_.*_(Pow|LShift|RShift|BitOr|BitAnd|BitXor|Mod)",
    r"core/RemoveDecorator",
]

# Plugins these tests do without, and what every run imports (done once, before forking).
UNUSED_PLUGINS = ["randomly", "cacheprovider", "faker", "schemathesis", "benchmark", "anyio",
                  "xdist", "xdist.looponfail"]  # fmt: skip
PRELOADED = ["pytest", "pytest_django.plugin", "_hypothesis_pytestplugin", "hypothesis",
             "django.db.models", "django.test", "yaml", "jsonschema", "jsonschema_rs"]  # fmt: skip

SEED = 33
SAMPLE = 60
TIMEOUT = 300.0


def copy_project(into: Path, commit: str | None, tests_commit: str | None) -> None:
    """The working tree's files (tracked and new, not ignored), or those of `commit`;
    with `tests/` from `tests_commit` when given."""
    into.mkdir(parents=True)
    if commit is not None:
        extract(commit, into)
    else:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout.decode()
        for name in filter(None, listed.split("\0")):
            source = ROOT / name
            if source.is_file():
                (into / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, into / name)
    if tests_commit is not None:
        shutil.rmtree(into / "tests")
        extract(tests_commit, into, "tests")


def extract(commit: str, into: Path, *paths: str) -> None:
    archive = subprocess.run(
        ["git", "archive", commit, *paths], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def config(module: str) -> str:
    excluded = ", ".join(f"'{pattern}'" for pattern in EXCLUDED)
    return (
        "[cosmic-ray]\n"
        f'module-path = "{module}"\n'
        f"timeout = {TIMEOUT}\n"
        "excluded-modules = []\n"
        "test-command = 'false'\n"  # not used: `run_tests` runs them
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{excluded}]\n"
    )


def place(item) -> tuple:
    (mutation,) = item.mutations
    return (mutation.start_pos, mutation.end_pos, mutation.operator_name, mutation.occurrence)


def hold_out(db: WorkDB, *, seed: int, sample: int) -> int:
    """Marks all but `sample` pending mutants skipped; returns how many there were."""
    pending = sorted(db.pending_work_items, key=place)
    kept = set(random.Random(seed).sample(range(len(pending)), min(sample, len(pending))))
    skipped = [item.job_id for i, item in enumerate(pending) if i not in kept]
    db.set_multiple_results(
        skipped, WorkResult(output="Not in the sample", worker_outcome=WorkerOutcome.SKIPPED)
    )
    return len(pending)


def run_tests(workdir: Path, tests: list[str]) -> bool:
    """True when every test passes, run in a fork of this process inside `workdir`."""
    pid = os.fork()
    if pid == 0:  # the child: the project's modules are imported here, fresh from disk
        code = 3
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.chdir(workdir)
            sys.path.insert(0, str(workdir))
            sys.dont_write_bytecode = True  # a mutant's bytecode must not outlive it
            import pytest

            plugins = [f"-pno:{plugin}" for plugin in UNUSED_PLUGINS]
            code = int(pytest.main(["-x", "-q", "--hypothesis-seed=0", *plugins, *tests]))
        finally:
            os._exit(code)
    deadline = time.monotonic() + TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) == 0
        if time.monotonic() > deadline:  # a mutant that never ends is caught by the timeout
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return False
        time.sleep(0.05)


def cosmic_ray(*args: str, cwd: Path) -> None:
    tool = Path(sys.executable).with_name(args[0])
    subprocess.run([str(tool), *args[1:]], cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def measure(module: str, *, seed: int, sample: int, workdir: Path) -> tuple[int, int]:
    # An older commit may not have every test file yet: it is judged by those it has.
    tests = [name for name in MODULES[module] if (workdir / name).exists()]
    (workdir / "mutation.toml").write_text(config(module))
    session = workdir / "session.sqlite"
    cosmic_ray("cosmic-ray", "init", "mutation.toml", str(session), cwd=workdir)
    cosmic_ray("cr-filter-operators", str(session), "mutation.toml", cwd=workdir)
    if not run_tests(workdir, tests):
        sys.exit(f"{module}: the tests fail before any mutation; fix them first.")

    killed = total = 0
    survivors = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        mutants = hold_out(db, seed=seed, sample=sample)
        for item in sorted(db.pending_work_items, key=place):
            (mutation,) = item.mutations
            operator = get_operator(mutation.operator_name)(**mutation.operator_args)
            path = workdir / mutation.module_path
            with use_mutation(path, operator, mutation.occurrence) as (original, mutated):
                if mutated is None:
                    db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.NO_TEST))
                    continue
                passed = run_tests(workdir, tests)
            outcome = TestOutcome.SURVIVED if passed else TestOutcome.KILLED
            db.set_result(
                item.job_id, WorkResult(worker_outcome=WorkerOutcome.NORMAL, test_outcome=outcome)
            )
            total += 1
            if passed:
                line = mutation.start_pos[0]
                survivors.append(
                    f"  {mutation.module_path}:{line} {mutation.operator_name}"
                    f" #{mutation.occurrence} in {mutation.definition_name}:"
                    f" {original.splitlines()[line - 1].strip()}"
                )
            else:
                killed += 1
    print(f"\n{module}: {killed}/{total} killed ({100 * killed / max(total, 1):.1f}%) of a"
          f" sample of {mutants} mutants, seed {seed}; tests: {' '.join(tests)}")  # fmt: skip
    print("\n".join(survivors) or "  no survivors", flush=True)
    return killed, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"any of {', '.join(MODULES)} (all)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--sample", type=int, default=SAMPLE)
    parser.add_argument("--at", metavar="COMMIT", help="measure this commit's files instead")
    parser.add_argument(
        "--tests-at", metavar="COMMIT", help="with the tests of this commit (a score before)"
    )
    args = parser.parse_args()
    if unknown := set(args.modules) - set(MODULES):
        parser.error(f"not a pure module this script knows: {', '.join(sorted(unknown))}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # the scratch copy goes too
    for name in PRELOADED:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    scores = {}
    with tempfile.TemporaryDirectory(prefix="mutation-") as scratch:
        # Every copy first: the files may change while the mutants run.
        workdirs = {m: Path(scratch) / m.replace("/", "_") for m in args.modules or MODULES}
        for workdir in workdirs.values():
            copy_project(workdir, args.at, args.tests_at)
        for module, workdir in workdirs.items():
            scores[module] = measure(module, seed=args.seed, sample=args.sample, workdir=workdir)
    print(f"\nMutation scores (Cosmic Ray mutants, seed {args.seed}, {args.sample} a module):")
    for module, (killed, total) in scores.items():
        print(f"  {module:28} {killed:3}/{total:<3} {100 * killed / max(total, 1):5.1f}%")


if __name__ == "__main__":
    main()
