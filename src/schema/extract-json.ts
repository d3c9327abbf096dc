const FENCE = '```'
const INFO_CHAR = /[a-zA-Z0-9_-]/
const HORIZONTAL_SPACE = /[^\S\n]/

/**
 * The JSON text of a model answer: reasoning blocks (`<think>…</think>`, as Qwen3 writes them)
 * and a markdown code fence around the whole answer are removed. Linear in the text's length
 * (no backtracking regular expression), whatever the model wrote.
 */
export function extractJson(text: string): string {
  return unfenced(withoutThinking(text)).trim()
}

function withoutThinking(text: string): string {
  const start = text.trimStart()
  if (!start.startsWith('<think>')) return text
  const end = start.indexOf('</think>')
  return end < 0 ? text : start.slice(end + '</think>'.length)
}

/** The body of a fence that encloses the whole answer (an info string like `json` is dropped); else the answer. */
function unfenced(answer: string): string {
  const text = answer.trim()
  if (!text.startsWith(FENCE) || !text.endsWith(FENCE)) return answer
  let open = FENCE.length
  while (open < text.length && INFO_CHAR.test(text[open]!)) open++
  while (open < text.length && HORIZONTAL_SPACE.test(text[open]!)) open++
  if (text[open] === '\n') open++
  const close = text.length - FENCE.length
  return close >= open ? text.slice(open, close) : answer
}
