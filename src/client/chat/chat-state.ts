import type { ApprovalQueue } from '../../advisors'
import type { AttachmentPart, ToolCallback } from '../../core'
import type { ChatMemory } from '../../memory'
import type { SessionService } from '../../session'
import type { DeepPartial, SchemaLike } from '../../schema'
import type { ChatClient, ChatClientRequestSpec } from '../client'
import type { ChatMessageView, ToolParts } from './chat-view'

/**
 * What the chat is doing: restoring the conversation, streaming an answer, running tools, waiting
 * for the user to approve a tool call (the answer goes on once answered), idle, or failed.
 */
export type ChatStatus = 'idle' | 'loading' | 'streaming' | 'running-tools' | 'awaiting-approval' | 'error'

/** How an answer ended. */
export interface ChatFinish<Tools = ToolCallback> {
  /** The answer's bubble as it ended. */
  message: ChatMessageView<Tools>
  /** Every bubble, the answer's included. */
  messages: ChatMessageView<Tools>[]
  /** `done`: the model finished; `stopped`: stop(), a later action or an abort ended it; `error`: it failed. */
  reason: 'done' | 'stopped' | 'error'
}

export interface CreateChatOptions<Tools = ToolCallback, Output extends SchemaLike = SchemaLike> {
  /**
   * The answer is structured: the schema goes to the model (natively or as format instructions),
   * `object` follows the answer as it streams (complete values only) and is the validated value
   * at the end. An answer that is not the structure ends the turn with an OutputParseError.
   */
  output?: Output
  /** With `output`: an invalid answer is retried with the errors (StructuredOutputValidationAdvisor). */
  validate?: boolean
  /**
   * With memory the conversation is restored (a reload) and only new messages are sent. Default:
   * the ChatMemory of the client's memory advisor, if it has one.
   */
  memory?: ChatMemory
  /**
   * The chat shows a session's whole conversation (what compaction covered too), the bubble where
   * the model's view begins marked `viewStart`, and sends only new messages; `conversationId` is the
   * session's id. Default: the SessionService of the client's SessionMemoryAdvisor, if it has one.
   */
  session?: SessionService
  conversationId?: string
  /** Adds to every request (options, advisors, params) before it is sent. */
  configure?: (spec: ChatClientRequestSpec) => ChatClientRequestSpec
  /**
   * The queue `addToolApproval` answers. Default: the queue of the client's ToolApprovalAdvisor;
   * or, when a tool of the client has `needsApproval` and no such advisor, the chat's own queue,
   * with an advisor that asks it added to each request.
   */
  approvals?: ApprovalQueue
  /** Called once when an answer ends, however it ends (see `reason`). */
  onFinish?: (finish: ChatFinish<Tools>) => void
  /** Called when an answer fails (also in `error`); not for a stop. */
  onError?: (error: Error) => void
  /** Called when the model has asked for a tool call whole (its arguments complete), before it runs or is asked about. */
  onToolCall?: (call: ToolParts<Tools>) => void
}

export interface ToolApprovalAnswer {
  /** The tool call's id. */
  id: string
  approved: boolean
  /** When declining: what the user said, passed on to the model. */
  reason?: string
}

/** What a chat shows; a new object whenever something in it changed, the same one otherwise. */
export interface ChatState<Tools = ToolCallback, Output = unknown> {
  /** The bubbles; a bubble (and a part) that did not change keeps its identity. */
  messages: ChatMessageView<Tools>[]
  /**
   * With `output`: the structured answer of the latest turn, a deep-partial value while it streams
   * (starting over with each model call), then the validated value. Undefined before it starts.
   */
  object: DeepPartial<Output> | undefined
  status: ChatStatus
  error: Error | undefined
  /** True when the restored conversation ended with tool calls that never ran (the page closed mid-turn). */
  pendingTurn: boolean
}

/** What a user can do to a chat; each is bound, so it can be passed around alone. */
export interface ChatCommands<Tools = ToolCallback> {
  /**
   * Sends a user message (with images or files, optional) and streams the answer into `messages`.
   * An answer still running is stopped first, as `stop()` would (its bubble keeps what arrived).
   * Resolves when the answer ends, however it ends; it never rejects for the model's errors
   * (they show in `status` and `error`).
   */
  send: (text: string, attachments?: ReadonlyArray<AttachmentPart | File>) => Promise<void>
  /** The same as `send`, as one object: `sendMessage({ text, attachments })`. */
  sendMessage: (message: { text: string; attachments?: ReadonlyArray<AttachmentPart | File> }) => Promise<void>
  /** Continues a pending turn: its tool calls run (asking for approval again where needed) and the model answers. Does nothing without one. */
  resume: () => Promise<void>
  /** Stops the answer being streamed: its model request, running tools and pending approvals are cancelled. */
  stop: () => void
  /** Asks the last question again, replacing its answer (failed, stopped, or still running: then it is stopped first). */
  retry: () => Promise<void>
  /** The same as `retry`, for an answer that was fine: the old turn is forgotten (in memory too) and asked again. */
  regenerate: () => Promise<void>
  /**
   * Answers the approval a tool call waits for, from the message that shows it (its part is
   * `awaiting-approval`). Needs the `approvals` queue the ToolApprovalAdvisor asks.
   */
  addToolApproval: (answer: ToolApprovalAnswer) => void
  /** Stops what runs and forgets the conversation (and its memory, or deletes its session). */
  clear: () => Promise<void>
  /**
   * Replaces the bubbles (a list, or a function of the current one), after stopping what runs.
   * What is sent next follows them: without memory the history sent is rebuilt from them; with
   * memory the conversation in memory is replaced by their messages; on a session (whose log is
   * never rewritten) the session is made again with their messages as its log.
   */
  setMessages: (
    messages: ChatMessageView<Tools>[] | ((messages: ChatMessageView<Tools>[]) => ChatMessageView<Tools>[]),
  ) => Promise<void>
}

/**
 * A chat of one conversation, without a UI framework: its state (`getSnapshot`), a way to hear it
 * change (`subscribe`), and the commands. React's `useChat` subscribes to one; a Vue or Svelte
 * component can subscribe the same way. Every function of it is bound.
 */
export interface Chat<Tools = ToolCallback, Output = unknown> extends ChatCommands<Tools> {
  readonly memory: ChatMemory | undefined
  /** The session whose whole log the chat shows (undefined on chat memory, or without either). */
  readonly session: SessionService | undefined
  readonly conversationId: string
  getSnapshot: () => ChatState<Tools, Output>
  /**
   * Calls `listener` with the new state after each change. The first subscriber starts restoring
   * the conversation from memory. When the last one leaves (the component unmounted), the answer
   * that runs stops, and commands do nothing until someone subscribes again.
   */
  subscribe: (listener: (state: ChatState<Tools, Output>) => void) => () => void
  /** The client and options to use from now on (a framework's new render); `memory`, `session` and `conversationId` stay the chat's own. */
  setOptions: (client: ChatClient | undefined, options: CreateChatOptions<Tools, SchemaLike>) => void
}
