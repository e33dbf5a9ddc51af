"""The wire side of a request door: JSON in, JSON out, through ``OrchestratorService.dispatch``.

Response shape (DESIGN.md §8): ``{"id", "ok", "detail", "reply"?, "data"?, "error"?: {"code",
"message", ...}}``. Nothing a client sends can make this raise: every failure is a response.
"""

from __future__ import annotations

from idea.application.caller import ProgressListener
from idea.application.orchestrator_service import OrchestratorService
from idea.application.ports import AgentStore
from idea.domain.commands import Source
from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.orchestrator_request import requester, validate_request


def resolve_requester(agents: AgentStore, named: str | None) -> str | None:
    """The agent id a request's ``requester`` field names (by name or id), else None."""
    if not named:
        return None
    for agent in agents.all():
        if named in (agent.name, agent.id):
            return agent.id
    return None


def error_response(request_id: str, error: IdeaError) -> JsonObject:
    details: JsonObject = {key: value for key, value in error.to_dict().items()}
    return {"id": request_id, "ok": False, "detail": error.message, "error": details}


async def answer_request(
    service: OrchestratorService,
    agents: AgentStore,
    request_id: str,
    body: JsonValue,
    source: Source,
    requester_id: str | None = None,
    progress: ProgressListener | None = None,
) -> JsonObject:
    """Validate and dispatch ``body``; the requester defaults to the one the body names."""
    try:
        command = validate_request(body)
        if requester_id is None:
            requester_id = resolve_requester(agents, requester(body))
        outcome = await service.dispatch(command, source, requester_id, progress)
    except IdeaError as exc:
        return error_response(request_id, exc)
    response: JsonObject = {"id": request_id, "ok": True, "detail": outcome.detail}
    if outcome.reply is not None:
        response["reply"] = outcome.reply
    if outcome.data is not None:
        response["data"] = outcome.data
    return response
