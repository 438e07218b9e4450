#!/usr/bin/env node
// `jepa-quantize`: the entry of @jepa/quantize, which parses process.argv and runs on import.
import '@jepa/quantize/main';
