# Multi-stage build on Debian bookworm: build with the project's own setup script, then copy the
# binary and only the shared libraries it links into a minimal runtime image.
FROM debian:bookworm AS build
WORKDIR /src
COPY . .
RUN bash scripts/setup.sh \
 && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
 && cmake --build build -j"$(nproc)" --target karpenter-proxmox \
 && mkdir -p /out/lib \
 && ldd build/bin/karpenter-proxmox | awk '/=>/ {print $3}' | xargs -I{} cp -L {} /out/lib/ \
 && cp build/bin/karpenter-proxmox /out/

FROM debian:bookworm-slim
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/lib/ /usr/local/lib/karpenter-proxmox/
COPY --from=build /out/karpenter-proxmox /usr/local/bin/karpenter-proxmox
ENV LD_LIBRARY_PATH=/usr/local/lib/karpenter-proxmox
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/karpenter-proxmox"]
