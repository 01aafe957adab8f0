# The beliefgraph API; docker-compose.yml runs it next to Neo4j.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# CPU-only torch first: sentence-transformers would otherwise pull the multi-GB CUDA build.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
RUN pip install --index-url "${TORCH_INDEX_URL}" torch

COPY . .
RUN pip install . && rm -rf /src

RUN useradd --create-home --uid 10001 beliefgraph
USER beliefgraph
WORKDIR /home/beliefgraph
# The user's own, so the volume compose mounts here starts with the user's ownership.
RUN mkdir -p /home/beliefgraph/.cache/beliefgraph

EXPOSE 8000
CMD ["beliefgraph", "serve"]
