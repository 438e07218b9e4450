#!/usr/bin/env node
// `changeset …` under Node 20: @changesets/cli 3's bin.js calls module.enableCompileCache(), which
// Node 20 lacks (its engines say ^22.11), while the CLI itself runs on Node 20.17+. This is that bin
// without the compile cache; the arguments are changeset's own (`node scripts/changeset.mjs status`).
await import('@changesets/cli');
