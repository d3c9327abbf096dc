// Chrome's built-in Prompt API as the explainer's Web IDL declares it
// (github.com/webmachinelearning/prompt-api, index.bs at commit 2e27365, 2026-06-22), plus the
// shared Availability / CreateMonitor / DestroyableModel of the writing-assistance APIs. Members
// this adapter does not use are left out; the deprecated extension-only usage members are
// optional, for browsers that still have only them.

export type Availability = 'unavailable' | 'downloadable' | 'downloading' | 'available'
export type LanguageModelMessageRole = 'system' | 'user' | 'assistant'
export type LanguageModelMessageType = 'text' | 'image' | 'audio' | 'tool-call' | 'tool-response'

export interface LanguageModelMessageContent {
  type: LanguageModelMessageType
  value: unknown
}

export interface LanguageModelMessage {
  role: LanguageModelMessageRole
  content: string | LanguageModelMessageContent[]
  prefix?: boolean
}

export type LanguageModelPrompt = LanguageModelMessage[] | string

export interface LanguageModelExpected {
  type: LanguageModelMessageType
  languages?: string[]
}

export interface LanguageModelCreateCoreOptions {
  topK?: number
  temperature?: number
  expectedInputs?: LanguageModelExpected[]
  expectedOutputs?: LanguageModelExpected[]
}

export interface CreateMonitor extends EventTarget {
  ondownloadprogress: ((event: ProgressEvent) => void) | null
}

export interface LanguageModelCreateOptions extends LanguageModelCreateCoreOptions {
  signal?: AbortSignal
  monitor?: (monitor: CreateMonitor) => void
  initialPrompts?: LanguageModelMessage[]
}

export interface LanguageModelPromptOptions {
  responseConstraint?: object
  omitResponseConstraintInput?: boolean
  signal?: AbortSignal
}

/** A session (`LanguageModel` instance). */
export interface LanguageModelSession extends EventTarget {
  prompt(input: LanguageModelPrompt, options?: LanguageModelPromptOptions): Promise<string>
  promptStreaming(input: LanguageModelPrompt, options?: LanguageModelPromptOptions): ReadableStream<string>
  measureContextUsage?(input: LanguageModelPrompt, options?: LanguageModelPromptOptions): Promise<number>
  readonly contextUsage?: number
  readonly contextWindow?: number
  /** Deprecated (extension contexts, older Chrome). */
  measureInputUsage?(input: LanguageModelPrompt, options?: LanguageModelPromptOptions): Promise<number>
  /** Deprecated (extension contexts, older Chrome). */
  readonly inputUsage?: number
  /** Deprecated (extension contexts, older Chrome). */
  readonly inputQuota?: number
  clone(options?: { signal?: AbortSignal }): Promise<LanguageModelSession>
  destroy(): void
}

/** The `LanguageModel` interface object, with its static members. */
export interface LanguageModelStatic {
  create(options?: LanguageModelCreateOptions): Promise<LanguageModelSession>
  availability(options?: LanguageModelCreateCoreOptions): Promise<Availability>
}

/** The page's `LanguageModel`, when the browser has one. */
export function browserLanguageModel(): LanguageModelStatic | undefined {
  return (globalThis as { LanguageModel?: LanguageModelStatic }).LanguageModel
}
