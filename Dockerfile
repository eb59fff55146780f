# rnm: one image holding the five programs (Gateway, CharacterService, UniversityService,
# HTTPGateway, rnmctl).
# The compose file picks the process with `command`. The five names are links to one multi-call
# binary, `rnm` (Sources/rnm), so the image carries one copy of the Swift runtime, Foundation and
# ICU instead of five: see "Image size" in docs/DEPLOY.md for what each step saved.

FROM swift:6.3.1-bookworm AS build
WORKDIR /src
# Manifest first: the dependency layer is reused while only sources change.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Plugins ./Plugins
COPY Tests ./Tests
COPY Benchmarks ./Benchmarks
# RNM_IMAGE=1: linked as Package.swift says for the image (lld, packed relocations, stripped).
RUN mkdir -p /out/bin /out/completions \
    && RNM_IMAGE=1 swift build -c release --static-swift-stdlib --product rnm \
    && cp "$(swift build -c release --show-bin-path)/rnm" /out/bin/ \
    && for program in Gateway CharacterService UniversityService HTTPGateway rnmctl; do ln -s rnm "/out/bin/$program"; done \
    && /out/bin/rnmctl --generate-completion-script bash > /out/completions/rnmctl.bash \
    && /out/bin/rnmctl --generate-completion-script zsh > /out/completions/_rnmctl \
    && /out/bin/rnmctl --generate-completion-script fish > /out/completions/rnmctl.fish

FROM debian:bookworm-slim
# Runtime libraries only: libcurl (URLSession's; the services open it as they make their URLSession,
# rnmctl never does: Sources/CCurlOnDemand), SQLite, CA certificates for HTTPS, and curl for the
# http service's healthcheck (the command a user types to try it). Logs are in UTC,
# so no time zone data. apt's downloaded archives and package caches go in the same layer: the
# debootstrap base has no docker-clean hook to remove them.
# Versions are not pinned (DL3008): the base is pinned to bookworm, and its security updates must
# be able to replace these packages on every rebuild.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4 curl libsqlite3-0 ca-certificates \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
    && groupadd --system --gid 10001 rnm \
    && useradd --system --uid 10001 --gid rnm --no-create-home --shell /usr/sbin/nologin rnm \
    && mkdir -p /run/rnm /var/lib/rnm \
    && chown rnm:rnm /run/rnm /var/lib/rnm \
    && chmod 0770 /run/rnm
COPY --from=build /out/bin/ /usr/local/bin/
# rnmctl's man page (docs/man, made by scripts/man from the command definitions) and completions.
COPY docs/man/rnmctl.1 /usr/local/share/man/man1/rnmctl.1
COPY --from=build /out/completions/rnmctl.bash /usr/share/bash-completion/completions/rnmctl
COPY --from=build /out/completions/_rnmctl /usr/local/share/zsh/site-functions/_rnmctl
COPY --from=build /out/completions/rnmctl.fish /usr/share/fish/vendor_completions.d/rnmctl.fish
ENV RNM_GATEWAY_SOCKET=/run/rnm/gateway.sock \
    RNM_CHARACTERS_SOCKET=/run/rnm/characters.sock \
    RNM_UNIVERSITIES_SOCKET=/run/rnm/universities.sock \
    RNM_CHARACTERS_DB=/var/lib/rnm/characters.sqlite \
    RNM_UNIVERSITIES_DB=/var/lib/rnm/universities.sqlite
# No EXPOSE: one image runs all four processes and only the HTTPGateway listens on a port
# (RNM_HTTP_ADDRESS; docker-compose.yml publishes it), so `docker ps` would show 8080/tcp on
# the three containers that never open it.
USER 10001:10001
STOPSIGNAL SIGTERM
CMD ["Gateway"]
