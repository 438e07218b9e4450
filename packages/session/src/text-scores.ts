// dino.txt's score of an image and a text, exp(logit_scale)·cos(image, text) (dinov3 eval/text/dinotxt_model.py):
// the one definition every front end uses (classify's logits, search by words), and zero-shot classes from it.
import { type ClassScore, softmax, topK } from '@jepa/graph';

/** [images][texts]: exp(logitScale)·cos(image i, text j); a zero vector scores 0. Accumulated in double precision. */
export function textScores(images: readonly ArrayLike<number>[], texts: readonly ArrayLike<number>[], logitScale: number): Float32Array[] {
  const scale = Math.exp(logitScale);
  const unit = (v: ArrayLike<number>): Float64Array => {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
    const n = Math.sqrt(s);
    return Float64Array.from({ length: v.length }, (_, i) => (n > 0 ? v[i]! / n : 0));
  };
  const t = texts.map(unit);
  return images.map((image) => {
    if (texts.length > 0 && image.length !== t[0]!.length)
      throw new RangeError(`textScores: image vectors are ${image.length} wide, text vectors ${t[0]!.length}`);
    const a = unit(image);
    return Float32Array.from(t, (b) => {
      if (b.length !== a.length) throw new RangeError(`textScores: text vectors are ${b.length} wide, image vectors ${a.length}`);
      let dot = 0;
      for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
      return scale * dot;
    });
  });
}

/** Zero-shot classes of one item's scores against the labels: the softmax over the labels, the k best (ties: lower index first). */
export function topLabels(scores: ArrayLike<number>, labels: readonly string[], k: number): ClassScore[] {
  const probs = softmax(scores);
  return topK(scores, k).map((index) => ({ index, label: labels[index]!, logit: scores[index]!, prob: probs[index]! }));
}
