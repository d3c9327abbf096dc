// Issue 42's long conversation on the real llama.cpp engine in Chromium: 300 turns (--turns N) on
// the tiny test model (scripts/tiny-gguf.mjs, byte-level vocabulary: about a token a character)
// loaded with a 1,024-token window, each a ~100-character question and one tool round whose result
// is ~640 characters, the session in IndexedDB with a SessionMemoryAdvisor compacting at 80% of the
// model's window (ContextWindowTrigger) to a quarter of it (TokenCountCompactionStrategy).
//
// What is real and what is scripted: the random-weights model never decides to call a tool, so the
// tool choice is scripted (ToolRoundScript): the round after the question is sent with
// `toolChoice: lookup` and a sampling bias toward ']' (so that the list of calls closes after one) —
// the engine writes the call itself, held to the tool's JSON by llama.cpp's grammar — and the round after the tool's result with `toolChoice: 'none'`, the engine writing a
// short free-text answer. Every model request goes to the real engine, which tokenizes the prompt
// with the model's own tokenizer and refuses it when it exceeds n_ctx; the usage is the engine's.
// Figures: turns completed, context errors (turns failed for the window: must be 0), the engine's
// refusals (recovered by the advisor's compact-and-send-again), compactions, the largest prompt and
// prompt + answer the engine reported against the window, time per turn; and, as the baseline on the
// same engine in the same run, 20 turns with today's default chat memory (the last 20 messages).
import { tinyGguf } from '../scripts/tiny-gguf.mjs'
import {
  ChatClient,
  ContextWindowTrigger,
  DefaultSessionService,
  IndexedDBSessionRepository,
  MessageChatMemoryAdvisor,
  MessageWindowChatMemory,
  SessionMemoryAdvisor,
  TokenCountCompactionStrategy,
  type ChatModel,
  type ChatResponse,
  type Prompt,
} from '../src'
import { WllamaChatModel } from '../src/wllama'
import { CompactionCounter, MeteredModel, converse, lookup, question, turnCount } from './long-session'
import { report } from './measure'

const WASM_URL = '/bench/wllama.wasm'
const WINDOW = 1024
const MAX_TOKENS = 128
const turns = turnCount()
const BASELINE_TURNS = Math.min(turns, 20)
const CLOSE_BRACKET = ']'.charCodeAt(0)

/**
 * Scripts the tool choice, never the reply: after the user's question the round must call `lookup`
 * (llama.cpp's grammar holds the engine to it), after the tool's result it may not call a tool.
 */
class ToolRoundScript implements ChatModel {
  readonly provider: string

  constructor(readonly model: ChatModel) {
    this.provider = model.provider
    if (model.countTokens) this.countTokens = (prompt, signal) => model.countTokens!(this.#chosen(prompt), signal)
  }

  countTokens?: (prompt: Prompt, signal?: AbortSignal) => Promise<number>

  get contextWindow(): number | undefined {
    return this.model.contextWindow
  }

  call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    return this.model.call(this.#chosen(prompt), signal)
  }

  stream(prompt: Prompt, signal?: AbortSignal): AsyncIterable<ChatResponse> {
    return this.model.stream(this.#chosen(prompt), signal)
  }

  #chosen(prompt: Prompt): Prompt {
    if (prompt.messages.at(-1)?.role !== 'user')
      return { ...prompt, options: { ...prompt.options, toolChoice: 'none' } }
    // The grammar allows any number of calls, and random weights rarely close the list: a bias
    // toward ']' (byte-level vocabulary: token 93) ends it after the first; the grammar still decides what is valid.
    const providerOptions = { ...prompt.options.providerOptions, wllama: { logit_bias: [[CLOSE_BRACKET, 10]] } }
    return { ...prompt, options: { ...prompt.options, toolChoice: { name: lookup.definition.name }, providerOptions } }
  }
}

const engine = await WllamaChatModel.create({
  model: new Blob([tinyGguf() as BlobPart]),
  wasmUrl: WASM_URL,
  contextLength: WINDOW,
  threads: 1,
})
const repository = new IndexedDBSessionRepository({ name: `bench-long-session-${Date.now()}` })
try {
  const model = new MeteredModel(new ToolRoundScript(engine))
  const compactions = new CompactionCounter()
  const client = ChatClient.builder(model)
    .defaultTools(lookup)
    .defaultOptions({ maxTokens: MAX_TOKENS, seed: 1 })
    .defaultAdvisors(
      SessionMemoryAdvisor.builder(new DefaultSessionService(repository))
        .compactionTrigger(ContextWindowTrigger.builder().fraction(0.8).build())
        .compactionStrategy(
          TokenCountCompactionStrategy.builder()
            .maxTokens(WINDOW / 4)
            .build(),
        )
        .build(),
      compactions,
    )
    .build()
  const tally = await converse(turns, (turn) => client.prompt(question(turn)).call().content())
  // The baseline, on the same engine: today's default chat memory (the last 20 messages), no compaction.
  const baselineModel = new MeteredModel(new ToolRoundScript(engine))
  const withChatMemory = ChatClient.builder(baselineModel)
    .defaultTools(lookup)
    .defaultOptions({ maxTokens: MAX_TOKENS, seed: 1 })
    .defaultAdvisors(MessageChatMemoryAdvisor.builder(MessageWindowChatMemory.builder().build()).build())
    .build()
  const { firstFailures, ...baseline } = await converse(BASELINE_TURNS, (turn) =>
    withChatMemory.prompt(question(turn)).call().content(),
  )
  report('long-session-llamacpp', {
    what: `${turns} turns on the tiny llama.cpp model (wllama, one thread) loaded with n_ctx ${engine.contextWindow}, one tool round a turn (~640-character result, ~100-character questions; the tool choice scripted, every reply written by the engine), maxTokens ${MAX_TOKENS}, session in IndexedDB, ContextWindowTrigger 0.8 + TokenCountCompactionStrategy ${WINDOW / 4}; the model ${(engine as ChatModel).countTokens ? 'counts tokens with its own tokenizer' : 'has no countTokens: the advisor estimates, corrected by the usage'}. contextErrors = turns failed for the window (goal 0); engineRefusals = prompts llama.cpp refused (sent again after compaction)`,
    ...tally,
    modelRequests: model.requests,
    engineRefusals: model.refusals,
    ...(model.refusalMessages.length ? { refusalMessages: model.refusalMessages } : {}),
    compactions: compactions.total,
    compactionsBy: compactions.byTrigger,
    peakPromptTokens: model.peakPromptTokens,
    peakPromptPlusAnswerTokens: model.peakTotalTokens,
    window: engine.contextWindow,
    [`baselineChatMemory20Messages${BASELINE_TURNS}Turns`]: {
      ...baseline,
      engineRefusals: baselineModel.refusals,
      firstFailures: firstFailures.map((failure) => failure.slice(0, 240)),
    },
  })
} finally {
  await repository.close()
  await engine.dispose()
}
