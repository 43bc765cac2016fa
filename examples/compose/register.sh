#!/bin/sh
# Waits for the hub, then registers the demo backend and the ingress gateway.
set -eu
until curl -fsS "$HUB/v1/status/leader" >/dev/null; do sleep 1; done
curl -fsS -X PUT --data @/register/echo-service.json "$HUB/v1/catalog/register"
curl -fsS -X PUT --data @/register/echo-defaults.json "$HUB/v1/config"
curl -fsS -X PUT --data @/register/ingress-gateway.json "$HUB/v1/config"
echo "registered echo and ingress-gateway"
