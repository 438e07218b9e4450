// The loopback Hub of `jepa-bench pull`, in a process of its own, so that serving shares neither
// the measured client's event loop nor its CPU time: seeds one repository from a file, sends the
// Hub's address to its parent, and stops when the parent disconnects.
import { readFileSync } from 'node:fs';
import { HubServer } from '@jepa/testing';

const [repo, checkpoint] = process.argv.slice(2) as [string, string];
const hub = new HubServer();
const commit = hub.seed(
  repo,
  new Map([
    ['config.json', Buffer.from(JSON.stringify({ model_type: 'vit' }))],
    ['model.safetensors', readFileSync(checkpoint)],
  ]),
);
const url = await hub.start();
process.send?.({ url, commit });
process.on('disconnect', () => {
  void hub.stop().then(() => process.exit(0));
});
