"""The chat model an agent uses is the one its config names (`llm@seeker.llm=...`)."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap

from crsim_testing import CRSIM

SCRIPTED = textwrap.dedent('''
    """A scripted chat model a user could plug in: answers each crsim prompt with fixed JSON."""
    import json

    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult


    class Scripted(BaseChatModel):
        label: str

        @property
        def _llm_type(self):
            return "scripted"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            system = str(messages[0].content)
            if "summarise customer reviews" in system:
                answer = {"summary": "People liked it."}
            elif "conversational recommender" in system:
                answer = {"question": f"{self.label}: which cuisine?", "aspect": "cuisine"}
            else:
                answer = {"answer": f"{self.label}: something spicy", "has_preference": True}
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=json.dumps(answer)))])


    def build(label="SCRIPTED"):
        return Scripted(label=label)
''')


def test_agents_use_the_chat_model_their_config_names(tiny_catalog_dir, tmp_path):
    (tmp_path / "my_llm").mkdir()
    (tmp_path / "my_llm" / "__init__.py").write_text("")
    (tmp_path / "my_llm" / "scripted.py").write_text(SCRIPTED)
    (tmp_path / "my_conf" / "llm").mkdir(parents=True)
    (tmp_path / "my_conf" / "llm" / "scripted.yaml").write_text("_target_: my_llm.scripted.build\nlabel: SCRIPTED\n")
    run_dir = tmp_path / "run"
    out = subprocess.run(
        [CRSIM, "run", f"hydra.searchpath=[file://{tmp_path / 'my_conf'}]", "llm@seeker.llm=scripted",
         "llm@recommender.llm=scripted", "recommender.llm.label=REC", f"environment.catalog={tiny_catalog_dir}",
         "environment.target_pool_size=5", "recommender=popularity", "episodes=2", "max_turns=2",
         "progress=false", f"hydra.run.dir={run_dir}"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    episodes = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]
    for episode in episodes:
        texts = [turn["text"] for turn in episode["turns"]]
        assert texts[1] == "SCRIPTED: something spicy" and texts[2] == "REC: which cuisine?"
        steps = {call["step"] for call in episode["llm_calls"]}
        answered = {"seeker_answer", "clarify_question", "summarize_reviews"}
        assert answered <= steps <= answered | {"seeker_move"}  # talk moves, when drawn, ask the model too
    calls = (run_dir / "llm_calls.jsonl").read_text().splitlines()
    assert len(calls) == sum(len(e["llm_calls"]) for e in episodes)
