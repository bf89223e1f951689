"""`crsim serve recommender=NAME [OVERRIDES...]`: a crsim recommender (or, with only
`seeker=NAME`, a seeker and its environment's episodes) behind HTTP.

The agent and its catalog are built from the same Hydra config `crsim run` composes with
the same overrides, so `crsim run recommender=http recommender.url=...` against this server
runs what `crsim run recommender=NAME` runs in one process. The server says where it
listens on one line of stdout when it is ready (`--port 0` takes a free port: read it
there) and runs until interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from simulators.cli.commands import command

DESCRIPTION = """\
Serve a crsim recommender (or, given seeker=NAME alone, a simulated seeker with its
environment's episodes) over HTTP in crsim's JSON protocol (GET / describes it, POST /turn
is one move; docs/evaluate-your-crs.md), or with --shape usersimcrs in the shape UserSimCRS
and CRS Arena send to a CRS (POST / with context and message, a plain-text reply). Trailing
arguments are `crsim run` overrides: which recommender, environment and catalog, e.g.
  crsim serve recommender=bm25 environment=movies --port 8765
  crsim run recommender=http recommender.url=http://127.0.0.1:8765 environment=movies
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim serve", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (0: a free one, printed when ready)")
    p.add_argument("--shape", choices=("crsim", "usersimcrs"), default="crsim", help="wire shape (default crsim)")
    p.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. recommender=bm25 environment=movies")
    return p


@command(interrupted="the server stopped")
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    server, name = build_server(args.overrides, args.shape)
    asyncio.run(serve(server, args.host, args.port, name))
    return 0


def build_server(overrides: list[str], shape: str) -> tuple[Any, str]:
    """The `AgentServer` for the recommender `overrides` compose (and its name)."""
    from omegaconf import OmegaConf

    from environments.errors import CrsimError
    from environments.models import Role
    from simulators.cli.precheck import check_overrides
    from simulators.engine.build import agent_config, build_agent, build_setup
    from simulators.engine.hydra_setup import CONF_DIR, compose_config, quiet_environment
    from simulators.serve.app import AgentServer

    quiet_environment()
    named = {o.split("=", 1)[0].lstrip("+"): o.split("=", 1)[1] for o in overrides if "=" in o}
    role = Role.seeker.value if "seeker" in named and "recommender" not in named else Role.recommender.value
    if role == Role.seeker.value and shape != "crsim":
        raise CrsimError("--shape usersimcrs is a CRS's shape: a seeker is served in crsim's protocol only")
    check_overrides(CONF_DIR, overrides)
    config = compose_config(overrides)
    OmegaConf.resolve(config)
    if OmegaConf.select(config, "recommender._target_") == "agents.recommenders.http.build":
        raise CrsimError("recommender=http is a client: serve the recommender it would talk to instead")
    setup = build_setup(config.environment)
    if role not in setup.roles:
        raise CrsimError(f"environment '{setup.name}' has no {role} (roles: {', '.join(setup.roles)})")
    catalog = setup.agent_catalog(role) or setup.agent_catalog(Role.recommender.value)
    if catalog is None:
        raise CrsimError(f"environment '{setup.name}' gives a {role} no catalog to serve")
    agent = build_agent(role, agent_config(config, role, setup), setup)
    name = named.get(role) or str(OmegaConf.select(config, f"{role}._target_"))
    try:
        return AgentServer(role, agent, catalog, name, shape=shape, setup=setup), name
    except ValueError as exc:
        raise CrsimError(str(exc)) from None


async def serve(server: Any, host: str, port: int, name: str) -> None:
    """Run until cancelled; print `serving ... on http://HOST:PORT` once listening."""
    from aiohttp import web

    runner = web.AppRunner(server.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1] if site._server and site._server.sockets else port
    print(f"serving {server.role} {name} ({server.shape}) on http://{host}:{bound}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


if __name__ == "__main__":  # pragma: no cover - `python -m simulators.cli.serve`
    sys.exit(main(sys.argv[1:]))
