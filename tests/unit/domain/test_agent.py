import pytest
from hypothesis import given
from hypothesis import strategies as st

from idea.domain import frontmatter
from idea.domain.agent import Agent, validate_model
from idea.domain.errors import Invalid
from idea.domain.names import is_slug, validate_slug
from idea.domain.profile import AdapterKind, Mode, Profile

slugs = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,63}", fullmatch=True)
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)


def test_agent_round_trips_with_unicode_and_multiline_context():
    agent = Agent(
        id="6f1c2d8e-0000-4000-8000-000000000001",
        name="architect",
        profile="claude",
        mode=Mode.STRUCTURED,
        model="sonnet",
        description="Révise: l'architecture — « hexagonale » #1",
        context='\nTu es l\'architecte.\n\n- règle 1: pas de "magie"\n---\nfin ✓\n',
        extra={"color": "blue", "metadata": {"type": "role", "since": "2026"}},
    )
    text = agent.to_markdown()
    assert Agent.from_markdown("architect", text) == agent
    assert frontmatter.render(*_doc(text)) == text


def _doc(text: str) -> tuple[frontmatter.FrontMatter, str]:
    doc = frontmatter.parse(text)
    return doc.front, doc.body


@given(
    name=slugs,
    description=st.none() | texts,
    model=st.none() | texts,
    context=texts,
    extra=st.dictionaries(st.from_regex(r"x[a-z_]{0,8}", fullmatch=True), texts, max_size=3),
)
def test_agent_round_trip_property(name, description, model, context, extra):
    agent = Agent(
        id="id-1",
        name=name,
        profile="codex",
        description=description,
        model=model,
        context=context,
        extra=extra,
    )
    assert Agent.from_markdown(name, agent.to_markdown()) == agent


def test_file_name_wins_over_front_matter_name():
    text = "---\nid: a1\nname: other\nprofile: shell\n---\nbody"
    agent = Agent.from_markdown("dev", text)
    assert agent.name == "dev"
    assert "name: dev" in agent.to_markdown()


def test_hand_written_agent_gets_the_given_id():
    agent = Agent.from_markdown("dev", "---\nprofile: shell\n---\nctx", new_id="fresh")
    assert agent.id == "fresh"
    assert agent.context == "ctx"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("---\nid: a\n---\n", "profile"),
        ("---\nprofile: shell\n---\n", "id"),
        ("---\nid: a\nprofile: shell\nmode: chat\n---\n", "mode"),
    ],
)
def test_missing_or_bad_fields_are_invalid_naming_the_field(text, field):
    with pytest.raises(Invalid) as err:
        Agent.from_markdown("dev", text)
    assert err.value.code == "INVALID"
    assert field in err.value.message


@pytest.mark.parametrize(
    "text",
    [
        "---\nid: a\nprofile: shell\n",  # no closing line
        "---\nid a\n---\n",  # not key: value
        "---\nid: a\nid: b\n---\n",  # duplicate key
        '---\nid: "unterminated\n---\n',
        "---\nid: a\n   profile: shell\n---\n",  # stray indentation
    ],
)
def test_malformed_front_matter_is_invalid(text):
    with pytest.raises(Invalid):
        frontmatter.parse(text)


def test_yaml_block_scalars_and_quotes_written_by_hand_are_read():
    text = (
        "---\nid: 'it''s'\nprofile: shell # a comment\ndescription: |\n"
        "  line one\n  line two\nmetadata:\n  type: project\n---\nbody\n"
    )
    agent = Agent.from_markdown("dev", text)
    assert agent.id == "it's"
    assert agent.profile == "shell"
    assert agent.description == "line one\nline two\n"
    assert agent.extra == {"metadata": {"type": "project"}}


def test_text_without_front_matter_is_all_body():
    doc = frontmatter.parse("# Title\nno front matter")
    assert doc.front == {}
    assert doc.body == "# Title\nno front matter"


@pytest.mark.parametrize("bad", ["../x", "a/b", "", "x" * 65, "Upper", "-lead", "a b", "a\\b", "é"])
def test_slug_rejection(bad):
    assert not is_slug(bad)
    with pytest.raises(Invalid) as err:
        validate_slug(bad, "agent name")
    assert "agent name" in err.value.message
    with pytest.raises(Invalid):
        Agent(id="i", name=bad, profile="shell")


@pytest.mark.parametrize("good", ["a", "x" * 64, "dev-2", "0_a", "claude-reviewer"])
def test_slug_acceptance(good):
    assert validate_slug(good) == good


def test_permission_mode_is_a_field_of_the_front_matter_and_round_trips():
    text = "---\nid: a1\nname: rev\nprofile: claude\npermission_mode: plan\ncolor: red\n---\nb"
    agent = Agent.from_markdown("rev", text)
    assert (agent.permission_mode, agent.extra) == ("plan", {"color": "red"})
    assert Agent.from_markdown("rev", agent.to_markdown()) == agent
    assert "permission_mode" not in Agent(id="a", name="x", profile="shell").to_markdown()


def test_a_model_is_one_bounded_word_and_blank_means_the_clis_default():
    assert validate_model("  opus ") == "opus"
    assert validate_model("mock/m1") == "mock/m1"
    assert validate_model("") is None
    assert validate_model(None) is None
    for bad in ("two words", "a\nb", "x" * 201, "tab\there"):
        with pytest.raises(Invalid) as err:
            validate_model(bad)
        assert err.value.field == "model"


def test_each_structured_cli_has_its_own_permission_modes():
    claude = Profile(name="c", command=("claude",), structured=AdapterKind.CLAUDE)
    codex = Profile(name="x", command=("codex",), structured=AdapterKind.CODEX)
    shell = Profile(name="sh", command=("bash",))
    assert claude.permission_modes == ("default", "acceptEdits", "plan", "bypassPermissions")
    assert "danger-full-access" in codex.permission_modes
    assert shell.permission_modes == () and shell.known_models == ()
    claude.check_permission_mode("plan")
    claude.check_permission_mode(None)
    shell.check_permission_mode(None)
    for profile, mode in ((claude, "read-only"), (codex, "plan"), (shell, "default")):
        with pytest.raises(Invalid) as err:
            profile.check_permission_mode(mode)
        assert err.value.field == "permission_mode"
