import {
  AGENT_CALL_KEY,
  contextValue,
  newId,
  RUN_ID_KEY,
  type AgentCall,
  type ToolCallback,
  type ToolContext,
} from '../core'
import { ObserverAdvisor, StreamPartsAdvisor } from '../advisors'
import { ChatMemory } from '../memory'
import type { SchemaLike } from '../schema'
import { SESSION_BRANCH_KEY } from '../session/session'
import { defineTool, ToolCallError } from '../tools'
import { ChatClient } from './client'

/** How `agentTool` presents a ChatClient as a tool, and runs it. */
export interface AgentToolOptions {
  /** The tool's name, as the parent's model sees it. */
  name: string
  /** What the sub-agent is for, as the parent's model sees it. */
  description: string
  /** The arguments the parent's model gives; default `{ task: string }` (required). */
  inputSchema?: SchemaLike
  /** The sub-agent's user message for a call's arguments; default: `input.task`. */
  prompt?: (input: unknown) => string
  /** The sub-agent's answer as an entity validated against this schema (retried inside the sub-agent); default: its text. */
  output?: SchemaLike
  /** The sub-agent's conversation (for its memory) for a call; default: a fresh one per call. */
  conversationId?: (input: unknown, parent: ToolContext) => string
  /**
   * With session memory (SessionMemoryAdvisor): the sub-agent writes to this branch of the parent's
   * session (under the parent's own branch) and sees only its branch and the parent's events, instead
   * of a conversation of its own.
   */
  sessionBranch?: string
  /** How deep sub-agents may nest, counting this one (a sub-agent of the app's client is at depth 1); default 4. */
  maxDepth?: number
}

const TASK = {
  type: 'object',
  properties: { task: { type: 'string', description: 'The task, with everything needed to do it' } },
  required: ['task'],
} as const

// Each agent's identity for the cycle check; contexts carry only these strings. An agent stamps
// its own in every request it makes (a default advisor param), so the app's client, when it is
// also some agent's tool, is known from the first call down.
const agentIds = new WeakMap<ChatClient, string>()
const AGENT_ID = 'advisor-chain.agent-id'

// The client behind each agent tool, for forkRun to re-run a round of a sub-agent's run.
const agentClients = new WeakMap<ToolCallback, ChatClient>()

/** The client an agent tool runs (undefined for any other tool). */
export function agentClientOf(tool: ToolCallback): ChatClient | undefined {
  return agentClients.get(tool)
}

/**
 * A ChatClient as a tool of another: each call runs the client's own chain (its advisors, tools,
 * memory, budget and approvals) on the call's task, in a conversation of its own, cancelled with
 * the parent's turn, and answers with the sub-agent's text (or its entity, with `output`). Too deep
 * a nesting, a cycle (an agent called again inside its own call) or a failing sub-agent is an
 * `Error:` response to the parent's model; the parent's turn goes on.
 */
export function agentTool(agent: ChatClient, options: AgentToolOptions): ToolCallback {
  const { name, output } = options
  const maxDepth = options.maxDepth ?? 4
  if (!Number.isInteger(maxDepth) || maxDepth < 1) {
    throw new RangeError(`maxDepth of agent tool '${name}' must be a whole number of at least 1, got ${maxDepth}`)
  }
  const defaults = ChatClient.defaultsOf(agent)
  let id = agentIds.get(agent)
  if (!id) agentIds.set(agent, (id = newId()))
  defaults.params[AGENT_ID] = id
  const agentId = id
  const tool = defineTool({
    name,
    description: options.description,
    inputSchema: options.inputSchema ?? TASK,
    async execute(input: unknown, context) {
      const parent = contextValue(context.advisorContext, AGENT_CALL_KEY)
      const path = [...strings(parent?.path), name]
      const caller = context.advisorContext[AGENT_ID]
      const agents = strings(parent?.agents)
      if (typeof caller === 'string' && !agents.includes(caller)) agents.push(caller)
      if (agents.includes(agentId)) {
        throw new ToolCallError(
          `sub-agent cycle: ${path.join(' → ')} (the agent of '${name}' is already running this call)`,
        )
      }
      if (path.length > maxDepth) {
        throw new ToolCallError(
          `sub-agent '${name}' would run at depth ${path.length}, beyond its maxDepth of ${maxDepth}: ${path.join(' → ')}`,
        )
      }
      const prompt = options.prompt ? options.prompt(input) : (input as { task?: unknown } | null)?.task
      if (typeof prompt !== 'string') {
        throw new ToolCallError(`agent tool '${name}' needs a prompt: give options.prompt, or take a 'task' string`)
      }
      const conversationId = options.conversationId ? options.conversationId(input, context) : `${name}-${newId()}`
      if (typeof conversationId !== 'string' || conversationId === '') {
        throw new ToolCallError(`conversationId of agent tool '${name}' must give a non-empty string`)
      }
      const call: AgentCall = { parentToolCallId: context.toolCall.id, path, agents: [...agents, agentId] }
      const parentRunId = contextValue(context.advisorContext, RUN_ID_KEY)
      if (typeof parentRunId === 'string') call.parentRunId = parentRunId
      const spec = agent
        .prompt(prompt)
        .advisorParams({ ...conversationOf(options, conversationId, context), [AGENT_CALL_KEY]: call })
      if (context.signal) spec.signal(context.signal)
      // Seen where it is called: the caller's observer records the sub-agent's run when it has none of its own.
      const listeners = context.advisors ?? []
      const observer = listeners.find((advisor) => advisor instanceof ObserverAdvisor)
      if (observer && !defaults.advisors.some((advisor) => advisor instanceof ObserverAdvisor)) spec.advisors(observer)
      if (output !== undefined) return spec.call().entity(output, { validate: true })
      const parts = listeners.find((advisor) => advisor instanceof StreamPartsAdvisor)
      if (!parts) return (await spec.call().content()) ?? ''
      // The caller streams its parts: the sub-agent streams too, and its parts go up under this call.
      let answer = ''
      for await (const part of spec.stream().parts()) {
        parts.reportAgentPart(context.toolCall.id, name, part)
        if (part.type === 'text-delta') answer += part.delta
        // The answer is the last round's text (or what returnDirect tools answered).
        else if (part.type === 'round-start' || part.type === 'tool-result') answer = ''
      }
      return answer
    },
  })
  agentClients.set(tool, agent)
  return tool
}

/** The sub-agent's conversation: its own, or its branch of the parent's session. */
function conversationOf(
  options: AgentToolOptions,
  conversationId: string,
  parent: ToolContext,
): Record<string, unknown> {
  const session = parent.advisorContext[ChatMemory.CONVERSATION_ID]
  if (options.sessionBranch === undefined || typeof session !== 'string')
    return { [ChatMemory.CONVERSATION_ID]: conversationId }
  const above = parent.advisorContext[SESSION_BRANCH_KEY]
  const branch = typeof above === 'string' && above !== '' ? `${above}.${options.sessionBranch}` : options.sessionBranch
  return { [ChatMemory.CONVERSATION_ID]: session, [SESSION_BRANCH_KEY]: branch }
}

/** The strings of a list from a context (plain data that may have been through a file or a fork). */
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
