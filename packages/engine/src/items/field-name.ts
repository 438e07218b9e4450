/** A key as it appears in an error message, cut short and stripped of control characters. */
export function fieldName(key: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it strips
  const clean = key.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}
