"""The offline world: stand-ins for what cannot exist without a real model, shipped for users too.

``sim/`` (the simulated agent model and its seeded world), ``scripted`` (a model that replays a JSON
script), ``sim_analyst`` and ``sim_editor`` (the evolution's offline analyst and Code-Modify agent),
``catalogue/`` (the mechanisms the sim editor writes), ``fake_server`` (an OpenAI-compatible server on
127.0.0.1) and ``synthetic`` (report test data). The production path reaches them only by name
(:func:`modularrsi.util.wing.offline`), never by import.
"""
