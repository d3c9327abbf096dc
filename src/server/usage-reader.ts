/** Tokens a request used, read from the provider's answer as it passes: a JSON body or an event stream. */
export interface TokenCount {
  inputTokens: number
  outputTokens: number
}

/** A line longer than this is not usage: it is passed on but not parsed. */
const MAX_LINE_CHARS = 1024 * 1024
/** A JSON answer longer than this is passed on but not parsed. */
const MAX_JSON_CHARS = 8 * 1024 * 1024

/**
 * Reads the usage of OpenAI chat (`usage.prompt_tokens`/`completion_tokens`, on the last chunk of a
 * stream with `stream_options.include_usage`), the Responses API (`response.usage` on
 * `response.completed`), Anthropic (`message.usage` on `message_start`, then `usage` on
 * `message_delta`) and embeddings (`usage.prompt_tokens`). Counts are cumulative: the last wins.
 * Anthropic's cached input counts as input. Nothing it reads can throw.
 */
export function usageReader(contentType: string): { read(chunk: Uint8Array): void; end(): TokenCount | undefined } {
  const stream = /^text\/event-stream|ndjson/i.test(contentType)
  const decoder = new TextDecoder()
  let text = ''
  let skipping = false
  let input: number | undefined
  let output: number | undefined

  const take = (value: unknown) => {
    for (const usage of usagesIn(value)) {
      const openAI = whole(usage['prompt_tokens'])
      const anthropicInput = whole(usage['input_tokens'])
      const cached = (whole(usage['cache_creation_input_tokens']) ?? 0) + (whole(usage['cache_read_input_tokens']) ?? 0)
      const seenInput = openAI ?? (anthropicInput === undefined ? undefined : anthropicInput + cached)
      const seenOutput = whole(usage['completion_tokens']) ?? whole(usage['output_tokens'])
      if (seenInput !== undefined) input = seenInput
      if (seenOutput !== undefined) output = seenOutput
    }
  }
  const line = (content: string) => {
    const data = content.replace(/^data:\s?/, '').trim()
    if (data.startsWith('{')) take(parsed(data))
  }

  return {
    read(chunk) {
      if (skipping && !stream) return
      text += decoder.decode(chunk, { stream: true })
      if (stream) {
        for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n')) {
          if (!skipping) line(text.slice(0, newline))
          skipping = false
          text = text.slice(newline + 1)
        }
      }
      if (text.length > (stream ? MAX_LINE_CHARS : MAX_JSON_CHARS)) {
        skipping = true
        text = ''
      }
    },
    end() {
      text += decoder.decode()
      if (!skipping) {
        if (stream) line(text)
        else take(parsed(text))
      }
      if (input === undefined && output === undefined) return undefined
      return { inputTokens: input ?? 0, outputTokens: output ?? 0 }
    },
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function usagesIn(value: unknown): Record<string, unknown>[] {
  if (!isRecord(value)) return []
  const holders = [value, value['message'], value['response']]
  return holders.flatMap((holder) => (isRecord(holder) && isRecord(holder['usage']) ? [holder['usage']] : []))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function whole(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined
}

/** The body asking for the usage the answer would otherwise leave out: an OpenAI chat stream's last chunk. */
export function askForUsage(body: Record<string, unknown>, provider: string): Record<string, unknown> {
  if (provider !== 'openai' || body['stream'] !== true) return body
  const options = isRecord(body['stream_options']) ? body['stream_options'] : {}
  return { ...body, stream_options: { ...options, include_usage: true } }
}
