#!/usr/bin/env python3
"""Ask `rwml serve` what each candidate action would lead to, as an agent would before acting.

Standard library only. Usage:

    python3 examples/world_model_client.py --url http://127.0.0.1:8000 [--api-key KEY]

The key defaults to $RWML_API_KEY (only needed when the server was started with one).
Prints one line per action: the action, then the predicted next state (or "(no prediction)"
when the model wrote no <next_state>), and last the model version that answered.
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request

TASK = "Your task is to: put a clean egg in the microwave."
HISTORY = [{"action": "go to countertop 1", "observation": "On the countertop 1, you see an egg 1."}]
OBSERVATION = "On the countertop 1, you see an egg 1."
ACTIONS = ["take egg 1 from countertop 1", "go to sinkbasin 1", "open microwave 1"]


def predict(url, api_key, actions, n=1, max_tokens=64, seed=None):
    """POST /v1/world-model/predict and return the decoded JSON answer."""
    body = {
        "env": "alfworld",
        "task": TASK,
        "history": HISTORY,
        "observation": OBSERVATION,
        "actions": actions,
        "n": n,
        "max_tokens": max_tokens,
    }
    if seed is not None:
        body["seed"] = seed
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = "Bearer " + api_key
    request = urllib.request.Request(
        url.rstrip("/") + "/v1/world-model/predict",
        data=json.dumps(body).encode("utf-8"),
        headers=headers,
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read().decode("utf-8"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--api-key", default=os.environ.get("RWML_API_KEY"))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    try:
        answer = predict(args.url, args.api_key, ACTIONS, seed=args.seed)
    except urllib.error.HTTPError as e:
        error = json.loads(e.read().decode("utf-8")).get("error", {})
        print("rwml serve answered %d: %s" % (e.code, error.get("message")), file=sys.stderr)
        return 1
    for prediction in answer["predictions"]:
        state = prediction["samples"][0]["next_state"]
        print("%s -> %s" % (prediction["action"], state if state is not None else "(no prediction)"))
    print("answered by %s (version %d)" % (answer["model"], answer["version"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
