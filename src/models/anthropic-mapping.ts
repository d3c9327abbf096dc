import type { Message, ToolCall, ChatOptions, ChatResponse, Usage } from '../core'

// Translation between our plain data and the Anthropic Messages wire format.

type Block = Record<string, unknown>
interface Turn {
  role: 'user' | 'assistant'
  content: Block[]
}

export interface AnthropicUsage {
  input_tokens?: number
  output_tokens?: number
  cache_read_input_tokens?: number | null
  cache_creation_input_tokens?: number | null
}

/** System messages become the `system` text; tool results go in one user turn; same-role turns are merged. */
export function toAnthropicMessages(messages: readonly Message[]): { system: string | undefined; messages: Turn[] } {
  const system: string[] = []
  const turns: Turn[] = []
  const push = (role: Turn['role'], content: Block[]) => {
    if (content.length === 0) return
    const last = turns.at(-1)
    if (last?.role === role) last.content.push(...content)
    else turns.push({ role, content })
  }
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.text)
        break
      case 'user':
        push('user', message.text ? [{ type: 'text', text: message.text }] : [])
        break
      case 'assistant':
        push('assistant', assistantBlocks(message.text, message.toolCalls, message.metadata))
        break
      case 'tool':
        push(
          'user',
          message.responses.map((response) => ({
            type: 'tool_result',
            tool_use_id: response.id,
            content: response.responseData,
            ...(response.responseData.startsWith('Error:') ? { is_error: true } : {}),
          })),
        )
        break
    }
  }
  // Tool results must come first in a user turn.
  for (const turn of turns) {
    if (turn.role === 'user')
      turn.content.sort((a, b) => Number(b['type'] === 'tool_result') - Number(a['type'] === 'tool_result'))
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: turns }
}

/** A thinking block with its signature must go back with the tool calls it led to. */
function assistantBlocks(
  text: string,
  toolCalls: readonly ToolCall[],
  metadata: Record<string, unknown> | undefined,
): Block[] {
  const blocks: Block[] = []
  if (typeof metadata?.['thinking'] === 'string' && typeof metadata['thinkingSignature'] === 'string') {
    blocks.push({ type: 'thinking', thinking: metadata['thinking'], signature: metadata['thinkingSignature'] })
  }
  if (text) blocks.push({ type: 'text', text })
  for (const call of toolCalls)
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(call.arguments) })
  return blocks
}

function parseInput(args: string): unknown {
  if (args.trim() === '') return {}
  try {
    return JSON.parse(args) as unknown
  } catch {
    return {}
  }
}

export function toAnthropicRequest(
  model: string,
  maxTokens: number,
  messages: readonly Message[],
  options: ChatOptions,
  stream: boolean,
): Record<string, unknown> {
  const mapped = toAnthropicMessages(messages)
  const body: Record<string, unknown> = {
    model: options.model ?? model,
    max_tokens: options.maxTokens ?? maxTokens,
    messages: mapped.messages,
  }
  if (mapped.system) body['system'] = mapped.system
  if (stream) body['stream'] = true
  if (options.temperature !== undefined) body['temperature'] = options.temperature
  if (options.topP !== undefined) body['top_p'] = options.topP
  if (options.stopSequences?.length) body['stop_sequences'] = options.stopSequences
  if (options.tools?.length) {
    body['tools'] = options.tools.map(({ definition }) => ({
      name: definition.name,
      description: definition.description,
      input_schema: definition.inputSchema,
    }))
  }
  const choice = options.toolChoice
  if (choice) {
    body['tool_choice'] =
      typeof choice === 'object'
        ? { type: 'tool', name: choice.name }
        : { type: choice === 'required' ? 'any' : choice }
  }
  return { ...body, ...options.providerOptions?.['anthropic'] }
}

/** Anthropic's stop reasons in the words the rest of the library uses; the original stays in metadata. */
export function finishReasonOf(stopReason: string | null | undefined): string | undefined {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'tool_use':
      return 'tool_calls'
    case 'max_tokens':
      return 'length'
    default:
      return stopReason ?? undefined
  }
}

export function toUsage(usage: AnthropicUsage | undefined): Usage | undefined {
  if (!usage || typeof usage.input_tokens !== 'number') return undefined
  const cacheRead = usage.cache_read_input_tokens ?? 0
  const cacheWrite = usage.cache_creation_input_tokens ?? 0
  const promptTokens = usage.input_tokens + cacheRead + cacheWrite
  const completionTokens = usage.output_tokens ?? 0
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    ...(usage.cache_read_input_tokens != null ? { cacheReadTokens: cacheRead } : {}),
    ...(usage.cache_creation_input_tokens != null ? { cacheWriteTokens: cacheWrite } : {}),
  }
}

interface AnthropicMessage {
  id?: string
  model?: string
  content?: Array<{
    type: string
    text?: string
    id?: string
    name?: string
    input?: unknown
    thinking?: string
    signature?: string
  }>
  stop_reason?: string | null
  usage?: AnthropicUsage
}

export function fromAnthropicMessage(message: AnthropicMessage): ChatResponse {
  let text = ''
  let thinking = ''
  let signature: string | undefined
  const toolCalls: ToolCall[] = []
  for (const block of message.content ?? []) {
    if (block.type === 'text') text += block.text ?? ''
    else if (block.type === 'thinking') {
      thinking += block.thinking ?? ''
      signature = block.signature ?? signature
    } else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) })
    }
  }
  return assembled({
    text,
    thinking,
    signature,
    toolCalls,
    stopReason: message.stop_reason,
    id: message.id,
    model: message.model,
    usage: toUsage(message.usage),
  })
}

/** One generation, with thinking on the message (so it survives in history) and the raw stop reason. */
export function assembled(parts: {
  text: string
  thinking: string
  signature: string | undefined
  toolCalls: ToolCall[]
  stopReason: string | null | undefined
  id: string | undefined
  model: string | undefined
  usage: Usage | undefined
}): ChatResponse {
  const finishReason = finishReasonOf(parts.stopReason)
  const messageMetadata = parts.thinking
    ? { metadata: { thinking: parts.thinking, ...(parts.signature ? { thinkingSignature: parts.signature } : {}) } }
    : {}
  return {
    results: [
      {
        output: { role: 'assistant', text: parts.text, toolCalls: parts.toolCalls, ...messageMetadata },
        metadata: {
          ...(finishReason ? { finishReason } : {}),
          ...(parts.stopReason ? { stopReason: parts.stopReason } : {}),
        },
      },
    ],
    metadata: {
      ...(parts.id ? { id: parts.id } : {}),
      ...(parts.model ? { model: parts.model } : {}),
      ...(parts.usage ? { usage: parts.usage } : {}),
    },
  }
}
