#!/usr/bin/env node
// `jepa-bench`: the entry of @jepa/bench, which parses process.argv and runs on import.
import '@jepa/bench/main';
