"""The LLM settings: endpoint, key, a model per role, structured-output mode, limits.

Read from the environment only when `llm_config_from_env` is called. With no endpoint and no
key, it returns None and the extractive (no-LLM) providers run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from graph.errors import InvalidInput
from reasoners.llm.interface import ROLES

STRUCTURED_MODES = ("json_schema", "tools", "json_object", "md_json")
StructuredMode = Literal["json_schema", "tools", "json_object", "md_json"]
MaxTokensParam = Literal["max_tokens", "max_completion_tokens"]


@dataclass(frozen=True)
class LLMConfig:
    base_url: str | None = None  # None: api.openai.com
    api_key: str = field(default="", repr=False)
    model: str = "gpt-4o-mini"  # serves every role without its own entry in `models`
    models: dict[str, str] = field(default_factory=dict)  # role -> model
    timeout_s: float = 60.0
    max_retries: int = 2
    mode: StructuredMode = "json_schema"
    max_tokens: int = 2048
    # OpenAI's reasoning models reject `max_tokens`; most local servers only know it.
    max_tokens_param: MaxTokensParam = "max_tokens"

    def __post_init__(self) -> None:
        if self.mode not in STRUCTURED_MODES:
            raise InvalidInput(f"LLM mode must be one of {', '.join(STRUCTURED_MODES)}")
        if self.max_tokens_param not in get_args(MaxTokensParam):
            raise InvalidInput("max_tokens_param must be max_tokens or max_completion_tokens")
        if self.timeout_s <= 0 or self.max_retries < 0 or self.max_tokens < 1:
            raise InvalidInput("LLM timeout and max_tokens must be positive, max_retries >= 0")
        if not self.model or not all(self.models.values()):
            raise InvalidInput("LLM model names must not be empty")

    def model_for(self, role: str) -> str:
        return self.models.get(role, self.model)

    @property
    def deadline_s(self) -> float:
        """How long one call may take in all, its transport retries included. The timeout
        alone bounds each wait for the next bytes, so an endpoint that trickles an answer
        a byte at a time would otherwise hold the call forever."""
        return self.timeout_s * (self.max_retries + 1)

    @property
    def structured_deadline_s(self) -> float:
        """deadline_s for a structured call: each of its re-asks is a call with its retries."""
        return self.deadline_s * (self.max_retries + 1)


# --- settings from the environment ------------------------------------------------------------


def role_env(role: str) -> str:
    """BELIEFGRAPH_LLM_MODEL_<ROLE>, e.g. dialectic-low -> BELIEFGRAPH_LLM_MODEL_DIALECTIC_LOW."""
    return "BELIEFGRAPH_LLM_MODEL_" + role.upper().replace("-", "_")


LLM_SETTINGS: list[tuple[str, str, str]] = [
    (
        "BELIEFGRAPH_LLM_BASE_URL",
        "",
        "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (empty: OpenAI). "
        "With neither this nor a key, the extractive no-LLM mode runs",
    ),
    (
        "BELIEFGRAPH_LLM_API_KEY",
        "",
        "API key for the endpoint (falls back to OPENAI_API_KEY; local servers need none)",
    ),
    ("BELIEFGRAPH_LLM_MODEL", "gpt-4o-mini", "Model for every role without its own setting"),
    *(
        (role_env(role), "", f"Model for the {role} role (empty: BELIEFGRAPH_LLM_MODEL)")
        for role in ROLES
    ),
    (
        "BELIEFGRAPH_LLM_TIMEOUT",
        "60",
        "Seconds one LLM request may wait for the next bytes (a streamed answer: for each "
        "event); a call is cut off after this times (BELIEFGRAPH_LLM_MAX_RETRIES + 1), a "
        "structured one (re-asks each retried) after that times (retries + 1) again; at most 3600",
    ),
    (
        "BELIEFGRAPH_LLM_MAX_RETRIES",
        "2",
        "Retries after a transport failure (429, 5xx, timeout) and re-asks after invalid "
        "output; at most 20",
    ),
    (
        "BELIEFGRAPH_LLM_MODE",
        "json_schema",
        "Structured output: json_schema | tools | json_object | md_json "
        "(try tools or json_object when a local model ignores JSON schema)",
    ),
    ("BELIEFGRAPH_LLM_MAX_TOKENS", "2048", "Most output tokens per LLM call (1 to 1,000,000)"),
    (
        "BELIEFGRAPH_LLM_MAX_TOKENS_PARAM",
        "max_tokens",
        "Request field for that limit: max_tokens | max_completion_tokens (OpenAI o-series)",
    ),
]


def _number(env: Mapping[str, str], name: str, kind: type[int] | type[float], high: float) -> Any:
    """The number `name` holds (None: unset), finite and at most `high` (the lower bounds are
    LLMConfig's): a timeout of 1e300 or inf, or 10^12 retries, was accepted."""
    raw = env.get(name, "")
    if not raw:
        return None
    try:
        number = kind(raw)
    except ValueError as exc:
        raise InvalidInput(f"{name}={raw!r} is not a valid {kind.__name__}") from exc
    if not math.isfinite(number) or number > high:
        raise InvalidInput(f"{name} must be a finite number of at most {high:g}, not {raw}")
    return number


def llm_config_from_env(env: Mapping[str, str]) -> LLMConfig | None:
    """The LLM settings in `env`, or None (extractive mode) when no endpoint or key is set.

    Empty values count as unset. An unknown BELIEFGRAPH_LLM_MODEL_<ROLE> is an error rather
    than silently ignored, since a typo there would quietly route a role to the wrong model.
    """
    base_url = env.get("BELIEFGRAPH_LLM_BASE_URL", "") or None
    api_key = env.get("BELIEFGRAPH_LLM_API_KEY", "") or env.get("OPENAI_API_KEY", "")
    # Read and checked even with no endpoint: a bad value (or a misspelt role) fails at start
    # instead of lying in wait for the day an endpoint is configured.
    config = _config(env, base_url, api_key)
    return config if base_url is not None or api_key else None


def _config(env: Mapping[str, str], base_url: str | None, api_key: str) -> LLMConfig:
    known = {role_env(role): role for role in ROLES}
    models: dict[str, str] = {}
    for name, value in env.items():
        if not name.startswith("BELIEFGRAPH_LLM_MODEL_") or name == "BELIEFGRAPH_LLM_MODEL_":
            continue
        if name not in known:
            raise InvalidInput(f"{name} names no role; roles are: {', '.join(sorted(known))}")
        if value:
            models[known[name]] = value
    values: dict[str, Any] = {"base_url": base_url, "api_key": api_key, "models": models}
    if env.get("BELIEFGRAPH_LLM_MODEL"):
        values["model"] = env["BELIEFGRAPH_LLM_MODEL"]
    for key, name, kind, high in (
        ("timeout_s", "BELIEFGRAPH_LLM_TIMEOUT", float, 3600),  # an hour a call
        ("max_retries", "BELIEFGRAPH_LLM_MAX_RETRIES", int, 20),
        ("max_tokens", "BELIEFGRAPH_LLM_MAX_TOKENS", int, 1_000_000),
    ):
        number = _number(env, name, kind, high)
        if number is not None:
            values[key] = number
    for key, name in (
        ("mode", "BELIEFGRAPH_LLM_MODE"),
        ("max_tokens_param", "BELIEFGRAPH_LLM_MAX_TOKENS_PARAM"),
    ):
        if env.get(name):
            values[key] = env[name]
    try:
        return LLMConfig(**values)
    except InvalidInput as exc:
        raise InvalidInput(f"LLM settings: {exc.message}") from exc
