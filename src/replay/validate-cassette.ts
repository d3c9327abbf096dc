import { isMessage } from '../core'
import { CASSETTE_FORMAT, type Cassette } from '../trace'

/**
 * Checks a cassette when it is loaded, so a malformed one fails at once with the field named
 * (`interactions[2].response.toolCalls[0].arguments must be a string`), not later with a TypeError.
 */
export function validateCassette(value: unknown): Cassette {
  const fail = (problem: string): never => {
    throw new TypeError(`Not an advisor-chain cassette: ${problem}`)
  }
  const interactions = isRecord(value) ? value['interactions'] : undefined
  if (!isRecord(value) || value['format'] !== CASSETTE_FORMAT || !Array.isArray(interactions)) {
    throw new TypeError(`Not an advisor-chain cassette (format must be "${CASSETTE_FORMAT}")`)
  }
  if (value['version'] !== 1) return fail(`version must be 1, got ${JSON.stringify(value['version']) ?? 'nothing'}`)
  interactions.forEach((interaction: unknown, index) => {
    const at = `interactions[${index}]`
    if (!isRecord(interaction)) return fail(`${at} must be an object`)
    const { request, response } = interaction
    if (!isRecord(request)) return fail(`${at}.request must be an object`)
    if (!Array.isArray(request['messages'])) return fail(`${at}.request.messages must be an array`)
    request['messages'].forEach((message: unknown, i) => {
      if (!isMessage(message)) fail(`${at}.request.messages[${i}] must be a system, user, assistant or tool message`)
    })
    if (!isStringArray(request['tools'])) return fail(`${at}.request.tools must be an array of tool names`)
    if (!isRecord(response)) return fail(`${at}.response must be an object`)
    if (typeof response['text'] !== 'string') return fail(`${at}.response.text must be a string`)
    if (!Array.isArray(response['toolCalls'])) return fail(`${at}.response.toolCalls must be an array`)
    response['toolCalls'].forEach((call: unknown, i) => {
      const where = `${at}.response.toolCalls[${i}]`
      if (!isRecord(call)) return fail(`${where} must be an object`)
      for (const field of ['id', 'name', 'arguments']) {
        if (typeof call[field] !== 'string') fail(`${where}.${field} must be a string`)
      }
    })
    for (const field of ['finishReason', 'model']) {
      if (response[field] !== undefined && typeof response[field] !== 'string') {
        fail(`${at}.response.${field} must be a string`)
      }
    }
    if (response['chunks'] !== undefined && !isStringArray(response['chunks'])) {
      fail(`${at}.response.chunks must be an array of strings`)
    }
    const usage = response['usage']
    if (usage !== undefined) {
      if (!isRecord(usage)) return fail(`${at}.response.usage must be an object`)
      for (const field of ['promptTokens', 'completionTokens', 'totalTokens']) {
        const count = usage[field]
        if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) {
          fail(`${at}.response.usage.${field} must be a number ≥ 0`)
        }
      }
    }
  })
  return value as unknown as Cassette
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}
