"""The retrieval evaluation's own parts (benchmarks/bench_retrieval.py): its questions answer with facts and
memories of the graph, its metrics are right on a hand-made ranking, its names are edited as it says.
Nothing here is timed and nothing is searched (no model)."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import OSA

import kgtoolkit
from kgtoolkit import frames

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_retrieval.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_retrieval", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_retrieval", module)
    spec.loader.exec_module(module)
    return module


br = _load()

HEADER = "subject\tpredicate\tobject\tvalid_from\tvalid_to\n"
YAGO = [
    ("Frances Howard (actress)", "wasBornIn", "Omaha, Nebraska", "1903-06-04", ""),
    ("Frances Howard (actress)", "isMarriedTo", "Samuel Goldwyn", "1925-01-01", "1974-12-31"),
    ("Gary D. Solis", "graduatedFrom", "Rutgers University", "", ""),
    ("Szymon Bogumił Zug", "created", "Lelewel Palace", "1787-01-01", ""),
    ("Szymon Bogumił Zug", "created", "Evangelical Church of the Holy Trinity", "1777-01-01", ""),
    ("Lionel Messi", "playsFor", "FC Barcelona", "2004-01-01", "2021-12-31"),
    ("Lionel Messi", "playsFor", "Paris Saint-Germain F.C.", "2021-01-01", "2023-12-31"),
]
WIKIDATA = [
    ("Q382767", "position held", "Q6578215", "1926-01-01", "1929-12-31"),
    ("Q1176859", "award received", "Q575568", "2008-01-01", "2008-12-31"),
    ("Q273133", "member of sports team", "Q979470", "1990-01-01", "1994-12-31"),
    ("Q273133", "member of sports team", "Q18656", "1995-01-01", "1996-12-31"),
]
ICEWS = [
    ("John Kerry", "Make a visit", "China", "2014-02-14", "2014-02-14"),
    ("John Kerry", "Make a visit", "China", "2014-05-01", "2014-05-01"),
    ("John Kerry", "Make a visit", "India", "2014-07-30", "2014-07-30"),
    (
        "Police (Australia)",
        "Arrest, detain, or charge with legal action",
        "Women (Australia)",
        "2014-01-01",
        "2014-01-01",
    ),
    ("Benjamin Netanyahu", "Criticize or denounce", "Iran", "2014-03-03", "2014-03-03"),
    ("Benjamin Netanyahu", "Consult", "John Kerry", "2014-01-02", "2014-01-02"),
]


@pytest.fixture
def graph(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """The evaluation graph built from three tiny datasets in the shared data's format (no index)."""
    files = {}
    for name, rows in (("yago11k", YAGO), ("wikidata12k", WIKIDATA), ("icews14", ICEWS)):
        folder = tmp_path / "data" / name
        folder.mkdir(parents=True)
        (folder / "facts.tsv").write_text(HEADER + "".join("\t".join(r) + "\n" for r in rows))
        files[name] = folder / "facts.tsv"
    path = tmp_path / "graph.sqlite3"
    info = br.build_graph(path, files, facts=40, memories=25, index=False)
    assert info["facts"] == 40  # the real rows, then generated facts up to the size
    assert {n: d["imported"] for n, d in info["datasets"].items()} == {"yago11k": 7, "wikidata12k": 4, "icews14": 6}
    capped = br.build_graph(
        tmp_path / "capped.sqlite3", files, rows={"yago11k": 3, "icews14": None}, memories=5, index=False
    )
    assert {n: d["imported"] for n, d in capped["datasets"].items()} == {"yago11k": 3, "icews14": 6}
    assert capped["facts"] == 9 and capped["memories"] == 5 and "generated" not in capped
    return path, files


def test_every_answer_is_a_fact_of_the_graph_with_the_question_s_subject_and_relation(
    graph: tuple[Path, dict[str, Path]],
) -> None:
    path, _ = graph
    kg = kgtoolkit.open(path)
    try:
        table = frames.facts(kg)
        for dataset in br.DATASETS:
            questions = br.fact_questions(table, dataset, 30)
            assert len(questions) == 30 and questions == br.fact_questions(table, dataset, 30)  # seeded
            assert len({q.text for q in questions}) > 3
            for q in questions:
                facts = [kg.fact(fid) for fid in q.answers]
                assert {f.source for f in facts} == {dataset}
                assert len({(f.subject, f.predicate) for f in facts}) == 1
                subject, predicate = facts[0].subject, facts[0].predicate
                assert predicate == q.relation.removesuffix(" (pair)")
                if q.relation.endswith("(pair)"):  # every fact of the pair, and the object named as stored
                    assert len({f.object for f in facts}) == 1 and facts[0].object_name in q.text
                    expected = {
                        f.id
                        for f in kg.query(subject, direction="outgoing")
                        if f.predicate == predicate and f.object == facts[0].object
                    }
                else:
                    expected = {f.id for f in kg.query(subject, direction="outgoing") if f.predicate == predicate}
                history = {
                    f.id
                    for f in kg.timeline(subject)
                    if f.subject == subject
                    and f.predicate == predicate
                    and (not q.relation.endswith("(pair)") or f.object == facts[0].object)
                }
                assert set(q.answers) == expected | history
                if q.variant == "exact":
                    assert facts[0].subject_name in q.text
        assert {q.variant for q in br.fact_questions(table, "wikidata12k", 30)} == {"exact"}  # Q-ids are kept
    finally:
        kg.close()


def test_rare_token_questions_name_the_token_of_their_one_answer(graph: tuple[Path, dict[str, Path]]) -> None:
    path, _ = graph
    kg = kgtoolkit.open(path)
    try:
        memories = frames.memories(kg)
        questions = br.memory_questions(memories, 40)
        assert questions == br.memory_questions(memories, 40)
        assert {q.relation for q in questions} == set(br.FAMILIES)
        for q in questions:
            (answer,) = q.answers
            memory = kg.memory(answer)
            token = memory.metadata["bench_token"]
            assert token in q.text and token in memory.text
            others = set(memories.filter(memories["text"].str.contains(token, literal=True))["id"].to_list())
            assert others == {answer}  # no other memory names the token
    finally:
        kg.close()


def test_rare_memories_are_seeded_and_their_tokens_unique() -> None:
    made = br.rare_memories(500)
    assert made == br.rare_memories(500) and made != br.rare_memories(500, seed=1)
    assert len({tok for _, tok, _ in made}) == 500
    assert all(tok in text for text, tok, _ in made)


def test_metrics_on_a_hand_made_ranking() -> None:
    ranked = [[7, 3, 9], [1, 2, 3, 4, 5, 6], [8], []]
    answers = [{3}, {6, 5}, {99}, {1}]
    ranks = [br.first_rank(r, a) for r, a in zip(ranked, answers)]
    assert ranks == [2, 5, None, None]
    assert br.recall_at(ranks, 1) == 0.0
    assert br.recall_at(ranks, 2) == 0.25
    assert br.recall_at(ranks, 5) == br.recall_at(ranks, 10) == 0.5
    assert br.mrr(ranks) == pytest.approx((1 / 2 + 1 / 5) / 4)
    assert br.mrr([1, 1]) == br.recall_at([1, 1], 1) == 1.0
    assert br.mrr([]) == br.recall_at([], 10) == 0.0


def test_a_way_find_cannot_take_is_reported_not_available() -> None:
    def old(kg: Any, query: str, *, k: int = 10, kind: str = "facts") -> None: ...

    def modes(kg: Any, query: str, *, k: int = 10, kind: str = "facts", mode: str = "hybrid") -> None: ...

    def full(
        kg: Any, query: str, *, k: int = 10, kind: str = "facts", mode: str = "hybrid", rerank: str | None = None
    ) -> None: ...

    assert br.availability(old) == {
        "vector": None,
        "lexical": "not available: find() takes no 'mode'",
        "hybrid": "not available: find() takes no 'mode'",
        "hybrid + graph": "not available: find() takes no 'mode', 'rerank'",
    }
    assert br.call_kwargs(old, "vector") == {}  # today's find: vector only, called without a mode
    assert br.availability(modes)["hybrid"] is None and br.availability(modes)["hybrid + graph"] is not None
    assert set(br.availability(full).values()) == {None}
    assert br.call_kwargs(full, "hybrid + graph") == {"mode": "hybrid", "rerank": "graph"}


@given(
    st.text(alphabet=st.characters(categories=("L",)), min_size=1, max_size=12).filter(lambda w: " " not in w),
    st.integers(0, 2**32 - 1),
)
def test_a_misspelling_is_one_edit_and_keeps_the_first_letter(word: str, seed: int) -> None:
    import numpy as np

    name = f"{word} Smithson"
    spelled = br.misspell(name, np.random.default_rng(seed))
    assert OSA.distance(name, spelled) == 1
    assert spelled[0] == name[0]


def test_abbreviations() -> None:
    assert br.abbreviate("Gary D. Solis") == "G. Solis"
    assert br.abbreviate("Szymon Bogumił Zug") == "S. Zug"
    assert br.abbreviate("Lionel Messi") == "L. Messi"
    assert br.abbreviate("Madonna") is None
    assert br.abbreviate("Government (United States)") is None
    assert br.abbreviate("Q382767") is None


def test_no_rare_token_holds_another() -> None:
    tokens = [tok for _, tok, _ in br.rare_memories(2000)]
    versions = sorted(t for t in tokens if t.startswith("v"))
    assert not any(b.startswith(a) for a, b in itertools.pairwise(versions))
    assert not any(a in b for a in tokens[:200] for b in tokens if a != b)
