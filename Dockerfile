# The image of the mcp-evals GitHub Action (and a way to run the CLI without installing it).
#
# Debian's own Python 3.13 and Node.js 20 are here so the `build` input can build the server under
# test, whether Python (`pip install -e .`) or TypeScript (`npm ci && npm run build`), and git for
# builds that ask it for versions. npm is the npm project's own release (pinned by version and
# checksum): Debian's `npm` package pulls in ~400 packages (webpack, eslint, libssl-dev …) that
# would add some 190 MB to every pull of the image. Two virtual environments:
#   /opt/mcp-evals  mcp-evals itself; only its `mcp-evals` command is on PATH, so nothing a build
#                   installs can break it.
#   /opt/venv       first on PATH: `python` and `pip` for the servers under test, with the `mcp` SDK
#                   already installed (the same version mcp-evals uses), so `command: python` servers
#                   run as they are and `pip install -e .` in the `build` input lands here.
# Build:  docker build -t mcp-evals .      Run:  docker run --rm -v "$PWD:/github/workspace" mcp-evals

FROM debian:trixie-slim AS python
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# The runtime dependencies alone, as a file: the layers below are reused (COPY compares contents)
# until they change, whatever else changes in pyproject.toml.
FROM python AS requirements
COPY pyproject.toml /src/pyproject.toml
RUN python3 -c "import tomllib; print('\n'.join(tomllib.load(open('/src/pyproject.toml', 'rb'))['project']['dependencies']))" > /requirements.txt

FROM python AS build
ARG NPM_VERSION=10.9.9
ARG NPM_SHA256=c80bd097147cce32e31010b791bab8c71a26a5e10668210ec9d2e7f4c7cea2a1
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

# npm: the release tarball bundles all its dependencies; unpacked it is the whole install.
RUN python3 -c "import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], '/tmp/npm.tgz')" \
      "https://registry.npmjs.org/npm/-/npm-${NPM_VERSION}.tgz" \
 && echo "${NPM_SHA256}  /tmp/npm.tgz" | sha256sum --check --strict - \
 && mkdir -p /opt/npm \
 && tar -xzf /tmp/npm.tgz -C /opt/npm --strip-components=1 --no-same-owner \
 && rm /tmp/npm.tgz

# Dependencies first: wheels fetched once, installed into both environments.
COPY --from=requirements /requirements.txt /tmp/requirements.txt
RUN python3 -m venv /opt/mcp-evals \
 && /opt/mcp-evals/bin/pip wheel --no-cache-dir --wheel-dir /wheels -r /tmp/requirements.txt \
 && /opt/mcp-evals/bin/pip install --no-cache-dir --no-index --find-links /wheels -r /tmp/requirements.txt \
 && /opt/mcp-evals/bin/pip install --no-cache-dir "setuptools>=77" \
 && python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --no-cache-dir --no-index --find-links /wheels mcp

# Then the package itself: a source change rebuilds only this small layer.
COPY pyproject.toml README.md LICENSE /src/
COPY src /src/src
RUN /opt/mcp-evals/bin/pip install --no-cache-dir --no-deps --no-build-isolation /src \
 && /opt/mcp-evals/bin/pip uninstall --yes setuptools pip

FROM debian:trixie-slim
LABEL org.opencontainers.image.title="mcp-evals" \
      org.opencontainers.image.description="Tool-selection evals for MCP servers: the GitHub Action" \
      org.opencontainers.image.source="https://github.com/sbissoli/mcp-evals" \
      org.opencontainers.image.licenses="MIT"
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv nodejs git ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
 && git config --system --add safe.directory '*'
COPY --from=build /opt/mcp-evals /opt/mcp-evals
COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/npm /usr/local/lib/node_modules/npm
COPY entrypoint.sh /usr/local/bin/mcp-evals-action
RUN ln -s /opt/mcp-evals/bin/mcp-evals /usr/local/bin/mcp-evals \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
ENTRYPOINT ["/usr/local/bin/mcp-evals-action"]
