// What the bench's model server says: one tool call for get_weather, then a short answer once the
// tool's result is in the conversation; as Chat Completions chunks (SSE) or, for a request without
// `stream`, as one completion. Also what it checks in each request body.

export const MODEL_PATH = '/v1/chat/completions'
export const TOOL_NAME = 'get_weather'
export const TOOL_CALL_ID = 'call_weather_1'
export const CITY = 'Paris'
/** The tool call's arguments, sent in three fragments. */
export const ARGUMENT_FRAGMENTS = ['{"ci', `ty": "${CITY}`, '"}']
/** The answer, sent in four chunks. */
export const ANSWER_CHUNKS = ['It is ', '18 °C ', 'and sunny ', `in ${CITY}.`]
export const ANSWER = ANSWER_CHUNKS.join('')

const USAGE = { prompt_tokens: 42, completion_tokens: 12, total_tokens: 54 }

/**
 * Which reply a request gets: the tool call until the conversation holds a tool message.
 * @param {{ messages?: Array<{ role?: string }> }} body
 * @returns {'tool-call' | 'answer'}
 */
export function replyKind(body) {
  return body.messages?.some((message) => message.role === 'tool') ? 'answer' : 'tool-call'
}

/**
 * What is wrong with a request body, if anything: the tool must be offered, and the second request
 * must carry the assistant's tool call and the tool's result for it.
 * @param {unknown} body
 * @returns {string[]}
 */
export function requestProblems(body) {
  if (typeof body !== 'object' || body === null) return ['the body is not a JSON object']
  const { messages, tools } = /** @type {{ messages?: unknown, tools?: unknown }} */ (body)
  const problems = []
  if (!Array.isArray(messages) || messages.length === 0) return ['no messages']
  if (!messages.some((message) => message?.role === 'user')) problems.push('no user message')
  const offered = Array.isArray(tools) ? tools.map((tool) => tool?.function?.name) : []
  if (!offered.includes(TOOL_NAME)) problems.push(`${TOOL_NAME} is not among the tools (${JSON.stringify(offered)})`)
  if (replyKind(body) === 'tool-call') return problems
  const asked = messages.find((message) => message?.role === 'assistant' && Array.isArray(message.tool_calls))
  const call = asked?.tool_calls.find((toolCall) => toolCall?.id === TOOL_CALL_ID)
  if (call?.function?.name !== TOOL_NAME) problems.push(`no assistant tool call ${TOOL_CALL_ID} to ${TOOL_NAME}`)
  else if (!sameJson(call.function.arguments, ARGUMENT_FRAGMENTS.join('')))
    problems.push(`the tool call's arguments came back as ${JSON.stringify(call.function.arguments)}`)
  const result = messages.find((message) => message?.role === 'tool')
  if (result?.tool_call_id !== TOOL_CALL_ID) problems.push(`the tool message answers ${result?.tool_call_id}`)
  else if (!String(toolText(result.content)).includes(CITY))
    problems.push(`the tool result does not name ${CITY}: ${JSON.stringify(result.content)}`)
  return problems
}

/**
 * The reply as Chat Completions chunk objects, in order (the last one carries the usage).
 * @param {'tool-call' | 'answer'} kind
 */
export function replyChunks(kind, model = 'bench-model') {
  const chunk = (delta, finishReason = null) => ({
    id: `chatcmpl-bench-${kind}`,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })
  const deltas =
    kind === 'tool-call'
      ? ARGUMENT_FRAGMENTS.map((fragment, index) => ({
          ...(index === 0 ? { role: 'assistant', content: null } : {}),
          tool_calls: [
            {
              index: 0,
              ...(index === 0 ? { id: TOOL_CALL_ID, type: 'function' } : {}),
              function: { ...(index === 0 ? { name: TOOL_NAME } : {}), arguments: fragment },
            },
          ],
        }))
      : ANSWER_CHUNKS.map((content, index) => ({ ...(index === 0 ? { role: 'assistant' } : {}), content }))
  return [
    ...deltas.map((delta) => chunk(delta)),
    chunk({}, kind === 'tool-call' ? 'tool_calls' : 'stop'),
    { ...chunk({}), choices: [], usage: USAGE },
  ]
}

/**
 * The reply as the bytes of an SSE body: one `data:` event per chunk, then `data: [DONE]`.
 * @param {'tool-call' | 'answer'} kind
 */
export function replyEvents(kind, model) {
  return [...replyChunks(kind, model).map((chunk) => JSON.stringify(chunk)), '[DONE]'].map(
    (data) => `data: ${data}\n\n`,
  )
}

/**
 * The reply as one completion, for a request without `stream`.
 * @param {'tool-call' | 'answer'} kind
 */
export function replyCompletion(kind, model = 'bench-model') {
  const message =
    kind === 'tool-call'
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: TOOL_CALL_ID,
              type: 'function',
              function: { name: TOOL_NAME, arguments: ARGUMENT_FRAGMENTS.join('') },
            },
          ],
        }
      : { role: 'assistant', content: ANSWER }
  return {
    id: `chatcmpl-bench-${kind}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: kind === 'tool-call' ? 'tool_calls' : 'stop' }],
    usage: USAGE,
  }
}

function sameJson(text, expected) {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(JSON.parse(expected))
  } catch {
    return false
  }
}

/** A tool message's content is a string, or text parts. */
function toolText(content) {
  return Array.isArray(content) ? content.map((part) => part?.text ?? '').join('') : content
}
