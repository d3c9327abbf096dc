const THINKING = /^\s*<think>[\s\S]*?<\/think>/
const FENCED = /^\s*```[a-zA-Z0-9_-]*[^\S\n]*\n?([\s\S]*?)\n?```\s*$/

/**
 * The JSON text of a model answer: reasoning blocks (`<think>…</think>`, as Qwen3 writes them)
 * and a markdown code fence around the whole answer are removed.
 */
export function extractJson(text: string): string {
  const answer = text.replace(THINKING, '')
  const fenced = FENCED.exec(answer)
  return (fenced ? fenced[1]! : answer).trim()
}
