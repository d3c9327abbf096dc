// Issue 42's long conversation against a remote-like model: 300 turns (--turns N), each a ~100-character
// question, one tool round with a ~640-character result and an answer of up to ~475 tokens, on a
// test double that refuses prompts over 4,096 tokens as OpenAI does, counted by a real tokenizer
// (bench/token-limited-model.ts). The model has no token counter: the session advisor estimates,
// corrected by the usage each answer reports. Two compaction set-ups, each on a fresh in-memory session:
// the README's (ContextWindowTrigger 0.8 or TurnCountTrigger 20, RecursiveSummarizationCompactionStrategy
// keeping 10 events, the summary written by the same model) and the demo's (ContextWindowTrigger 0.8,
// TokenCountCompactionStrategy of a quarter of the window), the first also streamed with the advisor
// inside the tool loop. Figures: turns completed, context errors
// (turns failed for the window: must be 0), the model's refusals (prompts it refused as too long;
// the advisor compacts and sends those again), compactions, the largest prompt against the window;
// and, as the baseline in the same run, the same turns with today's default chat memory (20 messages).
import type { CharacterTokenCountEstimator } from '../src'
import {
  ChatClient,
  HIGHEST_PRECEDENCE,
  CompositeCompactionTrigger,
  ContextWindowTrigger,
  DefaultSessionService,
  InMemorySessionRepository,
  MessageChatMemoryAdvisor,
  MessageWindowChatMemory,
  RecursiveSummarizationCompactionStrategy,
  SessionMemoryAdvisor,
  TokenCountCompactionStrategy,
  TurnCountTrigger,
  type CompactionStrategy,
  type CompactionTrigger,
} from '../src'
import { CompactionCounter, MeteredModel, converse, lookup, question, turnCount } from './long-session'
import { report, round } from './measure'
import { tokenLimitedModel } from './token-limited-model'

const WINDOW = 4096
const MAX_TOKENS = 512
const turns = turnCount()

async function conversation(
  setUp: (model: MeteredModel) => { trigger: CompactionTrigger; strategy: CompactionStrategy },
  { stream = false, insideLoop = false } = {},
) {
  const model = new MeteredModel(tokenLimitedModel(WINDOW))
  const sessions = new DefaultSessionService(new InMemorySessionRepository())
  const { trigger, strategy } = setUp(model)
  const compactions = new CompactionCounter()
  const client = ChatClient.builder(model)
    .defaultTools(lookup)
    .defaultOptions({ maxTokens: MAX_TOKENS })
    .defaultAdvisors(
      SessionMemoryAdvisor.builder(sessions)
        .compactionTrigger(trigger)
        .compactionStrategy(strategy)
        .order(insideLoop ? HIGHEST_PRECEDENCE + 400 : SessionMemoryAdvisor.DEFAULT_ORDER)
        .build(),
      compactions,
    )
    .build()
  const tally = await converse(turns, async (turn) => {
    if (!stream) return client.prompt(question(turn)).call().content()
    for await (const _delta of client.prompt(question(turn)).stream().content());
  })
  return {
    ...tally,
    modelRequests: model.requests,
    modelRefusals: model.refusals,
    ...(model.refusalMessages.length ? { refusalMessages: model.refusalMessages } : {}),
    compactions: compactions.total,
    compactionsBy: compactions.byTrigger,
    peakPromptTokens: model.peakPromptTokens,
    peakPromptPlusMaxTokens: model.peakPromptTokens + MAX_TOKENS,
    window: WINDOW,
    estimatorCorrection: round((sessions.tokenCountEstimator as CharacterTokenCountEstimator).correction, 3),
  }
}

/** The baseline: today's default chat memory (the last 20 messages), no compaction. */
async function withChatMemory() {
  const model = new MeteredModel(tokenLimitedModel(WINDOW))
  const client = ChatClient.builder(model)
    .defaultTools(lookup)
    .defaultOptions({ maxTokens: MAX_TOKENS })
    .defaultAdvisors(MessageChatMemoryAdvisor.builder(MessageWindowChatMemory.builder().build()).build())
    .build()
  const { firstFailures: _, ...tally } = await converse(turns, (turn) => client.prompt(question(turn)).call().content())
  return { ...tally, modelRefusals: model.refusals, peakPromptTokens: model.peakPromptTokens }
}

const recommended = (model: MeteredModel) => ({
  trigger: CompositeCompactionTrigger.anyOf(
    ContextWindowTrigger.builder().fraction(0.8).build(),
    new TurnCountTrigger(20),
  ),
  strategy: RecursiveSummarizationCompactionStrategy.builder(ChatClient.builder(model).build())
    .maxEventsToKeep(10)
    .build(),
})
const summarizing = await conversation(recommended)
const summarizingStreamedInLoop = await conversation(recommended, { stream: true, insideLoop: true })
const tokenWindow = await conversation(() => ({
  trigger: ContextWindowTrigger.builder().fraction(0.8).build(),
  strategy: TokenCountCompactionStrategy.builder()
    .maxTokens(WINDOW / 4)
    .build(),
}))

const chatMemory = await withChatMemory()

report('long-session-scripted', {
  what: `${turns} turns, one tool round each (~640-character result, ~100-character questions, answers up to ~475 tokens, maxTokens ${MAX_TOKENS}), on a scripted test double refusing prompts over ${WINDOW} tokens (gpt-tokenizer o200k_base count + maxTokens, OpenAI's context_length_exceeded); the model has no countTokens, the advisor estimates. contextErrors = turns failed for the window (goal 0); modelRefusals = prompts the model refused (sent again after compaction)`,
  recursiveSummarization: summarizing,
  recursiveSummarizationStreamedInsideTheLoop: summarizingStreamedInLoop,
  tokenCountQuarterWindow: tokenWindow,
  baselineChatMemory20Messages: chatMemory,
})
