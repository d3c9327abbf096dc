// advisor-chain/prompt-api: Chrome's built-in model (the Prompt API, `LanguageModel`) as a ChatModel.
export { promptApiError, type PromptApiFailure } from './errors'
export type { Availability, LanguageModelSession, LanguageModelStatic } from './language-model'
export {
  PromptApiChatModel,
  type PromptApiChatModelOptions,
  type PromptApiCreateOptions,
  type PromptApiProgress,
} from './model'
