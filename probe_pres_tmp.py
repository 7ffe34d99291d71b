import copy, json, random, traceback, collections
from tests._support.conformance.corpus import load_cases
from tests.conformance import test_presenter_tool_cases as t
import _pytest.outcomes
rng = random.Random(1)
HANDLERS = [
  {"return": "helper", "fn": "toonSuccess", "args": [{"$get":0}]},
  {"return": "builder", "data": None, "calls": [], "build": True},
  {"return": "builder", "data": None, "calls": [{"op":"systemRules","rules":["x"]}], "build": False},
  {"return": "helper", "fn": "success", "args": [None]},
  {"return": "helper", "fn": "successStructured", "args": [None]},
  {"return": "value", "value": None},
]
found = collections.Counter(); ex = {}; cases_ = {}
for case in load_cases("tool_call"):
    spec = case["input"]
    act, tool = t._action(spec)
    if not act or "returns" not in act: continue
    for h in HANDLERS:
        c = copy.deepcopy(case)
        a2, tool2 = t._action(c["input"])
        # data for the handler: the echo of args or existing value
        old = act.get("handler") or {"return": "echo"}
        data = old.get("value", old.get("data"))
        if data is None:
            data = [{"id": 1}, {"id": 2}, {"id": 3}]
        h = copy.deepcopy(h)
        if "args" in h: h["args"] = [data]
        else: h["data"] = data
        a2["handler"] = h
        if tool2.get("style") == "fluent": tool2["handler"] = h
        if isinstance(c["input"]["args"], dict) and tool2.get("enableSelect") and rng.random()<0.5:
            c["input"]["args"]["_select"] = ["id"]
        try:
            t.test_case(c)
        except (AssertionError, _pytest.outcomes.Failed, Exception) as e:
            tb = traceback.extract_tb(e.__traceback__)
            fn = [f"{fr.name}:{fr.lineno}" for fr in tb if "test_presenter_tool_cases" in fr.filename]
            key = (type(e).__name__, fn[-1] if fn else "?", h.get("fn") or h["return"])
            found[key]+=1; ex.setdefault(key, (case["id"], str(e)[:300])); cases_.setdefault(key, c)
for k,v in found.most_common(): print(v, k, ex[k])

import pickle
pickle.dump(cases_, open("/tmp/probe_cases.pkl","wb"))
