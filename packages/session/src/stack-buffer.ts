// Stacks item tensors of one shape into one batch tensor. A run's batches mostly come one after another,
// so one buffer serves every batch of a size; a batch stacked while the last one is still being copied in
// by its encoder gets a buffer of its own.
import type { EncoderInput } from '@jepa/graph';
import type { ItemTensor } from '@jepa/input';

export class StackBuffer {
  #data: Float32Array | undefined;
  #busy = false;

  async use<T>(tensors: readonly ItemTensor[], work: (input: EncoderInput) => Promise<T>): Promise<T> {
    const size = tensors[0]!.data.length;
    const length = tensors.length * size;
    const shared = !this.#busy;
    const data = shared && this.#data?.length === length ? this.#data : new Float32Array(length);
    if (shared) {
      this.#data = data;
      this.#busy = true;
    }
    for (const [i, t] of tensors.entries()) data.set(t.data, i * size);
    try {
      return await work({ data, shape: [tensors.length, ...tensors[0]!.shape] });
    } finally {
      if (shared) this.#busy = false;
    }
  }
}
