import type { Wllama } from '@wllama/wllama'

/** What WllamaChatModel uses of a loaded wllama instance (a `Wllama` is one). */
export type WllamaEngine = Pick<Wllama, 'createChatCompletion' | 'exit' | 'getLoadedContextInfo'>
