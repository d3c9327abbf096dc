import type { ToolCall, JsonSchema, ToolDefinition } from '../core'
import { stableToolCallId } from './stable-id'

// Tool calling for models without native tools (WebLLM's, llama.cpp's, the browser's own): the
// model must answer with JSON that is either a final answer or a list of tool calls, and the
// engine's grammar (or response constraint) holds it to that shape.

/** The grammar's schema: `{"answer": …}` or `{"tool_calls": [{"name": …, "arguments": {…}}]}`. */
export function replySchema(
  tools: readonly ToolDefinition[],
  answer: JsonSchema = { type: 'string' },
  { callRequired = false }: { callRequired?: boolean } = {},
): JsonSchema {
  const answerBranch = { type: 'object', properties: { answer }, required: ['answer'], additionalProperties: false }
  if (tools.length === 0) return answerBranch
  const calls = tools.map((tool) => ({
    type: 'object',
    properties: { name: { const: tool.name }, arguments: objectSchema(tool.inputSchema) },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }))
  const callBranch = {
    type: 'object',
    properties: { tool_calls: { type: 'array', minItems: 1, items: calls.length === 1 ? calls[0] : { anyOf: calls } } },
    required: ['tool_calls'],
    additionalProperties: false,
  }
  return callRequired ? callBranch : { anyOf: [answerBranch, callBranch] }
}

/** Tool arguments are always an object; a schema that says nothing is read as one. */
function objectSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _draft, ...rest } = schema
  return Object.keys(rest).length === 0 ? { type: 'object' } : rest
}

/** The system text that tells the model the tools and the reply format. */
export function toolInstructions(tools: readonly ToolDefinition[]): string {
  const list = tools
    .map(
      (tool) => `- ${tool.name}: ${tool.description}\n  arguments: ${JSON.stringify(objectSchema(tool.inputSchema))}`,
    )
    .join('\n')
  return [
    'You can call tools. Reply with JSON only, in one of two forms:',
    '{"tool_calls": [{"name": "<tool>", "arguments": {…}}]} to call one or more tools, or',
    '{"answer": "<your answer to the user>"} when you can answer.',
    'After tool calls you get their results, then reply again. Tools:',
    list,
  ].join('\n')
}

export type ParsedReply = { kind: 'answer'; text: string } | { kind: 'tool-calls'; toolCalls: ToolCall[] }

/**
 * Reads a reply. Calls with an unknown name or odd arguments are passed on as they are: the tool
 * manager answers them with an `Error:` the model can repair. A reply that is not the JSON shape
 * at all (cut off by max tokens) is an error.
 */
export function parseReply(raw: string, salt: string): ParsedReply {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    throw new SyntaxError(`the model's reply is not complete JSON (${(error as Error).message}): ${raw.slice(0, 160)}`)
  }
  const reply = (value ?? {}) as { answer?: unknown; tool_calls?: unknown }
  if ('answer' in reply)
    return { kind: 'answer', text: typeof reply.answer === 'string' ? reply.answer : JSON.stringify(reply.answer) }
  if (Array.isArray(reply.tool_calls) && reply.tool_calls.length > 0) {
    const toolCalls = reply.tool_calls.map((call: unknown, index): ToolCall => {
      const { name, arguments: args } = (call ?? {}) as { name?: unknown; arguments?: unknown }
      const text = typeof args === 'string' ? args : JSON.stringify(args ?? {})
      return {
        id: stableToolCallId(salt, index, String(name), text),
        name: typeof name === 'string' ? name : '',
        arguments: text,
      }
    })
    return { kind: 'tool-calls', toolCalls }
  }
  throw new SyntaxError(`the model's reply has neither "answer" nor "tool_calls": ${raw.slice(0, 160)}`)
}

/**
 * Streams the text of `{"answer": "…"}` while the JSON is still arriving: once the reply is seen to
 * start that way, each piece of the string is decoded and handed on as it comes.
 */
export class AnswerStreamer {
  #raw = ''
  #start = -1
  #decodedUpTo = 0
  #done = false

  /** The new answer text in this piece of output, or '' (when not an answer, or nothing new yet). */
  push(piece: string): string {
    this.#raw += piece
    if (this.#done) return ''
    if (this.#start < 0) {
      const match = /^\s*\{\s*"answer"\s*:\s*"/.exec(this.#raw)
      if (!match) return ''
      this.#start = this.#decodedUpTo = match[0].length
    }
    let text = ''
    let i = this.#decodedUpTo
    while (i < this.#raw.length) {
      const char = this.#raw[i]!
      if (char === '"') {
        this.#done = true
        break
      }
      if (char !== '\\') {
        text += char
        i++
        continue
      }
      const escape = this.#raw[i + 1]
      if (escape === undefined) break
      if (escape === 'u') {
        const hex = this.#raw.slice(i + 2, i + 6)
        if (hex.length < 4) break
        text += String.fromCharCode(parseInt(hex, 16))
        i += 6
        continue
      }
      text += ESCAPES[escape] ?? escape
      i += 2
    }
    this.#decodedUpTo = i
    return text
  }

  /** Whether the text streamed so far is the whole answer of a reply shaped as `{"answer": "…"}`. */
  get streaming(): boolean {
    return this.#start >= 0
  }

  get raw(): string {
    return this.#raw
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' }
