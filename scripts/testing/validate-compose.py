#!/usr/bin/env python3
"""Validates compose files against the compose specification's JSON schema.

    validate-compose.py SCHEMA FILE...
"""
import json
import sys

import jsonschema
import yaml

schema = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    jsonschema.validate(yaml.safe_load(open(path)), schema)
    print(f"{path}: valid against {sys.argv[1]}")
