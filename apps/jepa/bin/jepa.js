#!/usr/bin/env node
// `jepa`: the entry of @jepa/cli, which parses process.argv and runs on import.
import '@jepa/cli/main';
