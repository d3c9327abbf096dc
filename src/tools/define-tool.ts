import type { ToolApprovalRule, ToolCallback, ToolContext, TypedTool } from '../core'
import { type Infer, resolveSchema, type SchemaIssue, type SchemaLike, type Validation } from '../schema'
import { ToolCallError } from './tool-errors'
import { withTimeout } from './tool-timeout'
import { encodeResult } from './tool-result'

export interface ToolSpec<S extends SchemaLike, Name extends string = string> {
  name: Name
  description: string
  /** A JSON Schema object (use `as const` for typed arguments) or a Standard Schema with a JSON Schema. */
  inputSchema: S
  execute(args: Infer<S>, context: ToolContext): unknown
  /** When every tool of a round is returnDirect, their outputs are the answer and the model is not asked again. */
  returnDirect?: boolean
  /** A call that takes longer is answered with an `Error:` response and its signal is aborted. */
  timeoutMs?: number
  /** Each call waits for the user's approval (`true`), or when this returns true for its arguments. */
  needsApproval?: boolean | ((args: Infer<S>, context: ToolContext) => boolean | Promise<boolean>)
}

/** Each tool's own check of its arguments (parsed, then validated), without running it. */
const argumentChecks = new WeakMap<ToolCallback, (input: string) => Promise<Validation<unknown>>>()

/** Each tool's `call` as made, and the same call taking arguments already parsed. */
const parsedCalls = new WeakMap<ToolCallback, { made: ToolCallback['call']; parsed: ParsedCall }>()

type ParsedCall = (args: unknown, context: ToolContext) => Promise<string>

/**
 * Calls a tool with its arguments already parsed (`args`, a value of this call's own), so they are
 * not parsed twice in a round (bench-peers tool loop: the second parse was about 4% of a warm round in a Node profile).
 * A tool not made by defineTool, or whose `call` was replaced since, gets the text.
 */
export function callParsed(tool: ToolCallback, input: string, args: unknown, context: ToolContext): Promise<string> {
  const entry = parsedCalls.get(tool)
  return entry?.made === tool.call ? entry.parsed(args, context) : tool.call(input, context)
}

/**
 * What is wrong with a call's arguments, as the `Error:` response the tool would give (not JSON, or
 * breaking the tool's schema), without running it; undefined when nothing is. A tool not made by
 * defineTool (or unknown) has its arguments parsed only.
 */
export async function argumentsProblem(
  tool: ToolCallback | undefined,
  name: string,
  input: string,
): Promise<string | undefined> {
  try {
    const check = tool && argumentChecks.get(tool)
    if (!check) return void parseArguments(name, input)
    const validation = await check(input)
    return validation.ok ? undefined : `Error: ${invalidArguments(name, validation.issues).message}`
  } catch (error) {
    // Arguments that are not JSON: the tool's own words for it.
    if (error instanceof ToolCallError) return `Error: ${error.message}`
    throw error
  }
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** Makes a browser function a tool: arguments are parsed and validated, the result encoded for the model. */
export function defineTool<const S extends SchemaLike, const Name extends string = string>(
  spec: ToolSpec<S, Name>,
): TypedTool<Name, Infer<S>> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new TypeError(`Tool name '${spec.name}' must be 1–64 letters, digits, '_' or '-' (what model APIs accept)`)
  }
  // setTimeout fires at once for anything above 2^31 - 1 ms.
  if (spec.timeoutMs !== undefined && !(spec.timeoutMs > 0 && spec.timeoutMs <= 2_147_483_647)) {
    throw new TypeError(`timeoutMs of tool '${spec.name}' must be a positive number of milliseconds`)
  }
  const schema = resolveSchema<Infer<S>>(spec.inputSchema, 'input')
  const check = (input: string) => schema.validate(parseArguments(spec.name, input))
  const parsed: ParsedCall = async (args, context) => {
    const validation = await schema.validate(args)
    if (!validation.ok) throw invalidArguments(spec.name, validation.issues)
    return encodeResult(await run(spec, validation.value, context), spec.name)
  }
  // Async: arguments that are not JSON reject the call rather than throw.
  const call = async (input: string, context: ToolContext) => parsed(parseArguments(spec.name, input), context)
  const tool: ToolCallback = {
    definition: { name: spec.name, description: spec.description, inputSchema: schema.jsonSchema },
    metadata: {
      returnDirect: spec.returnDirect ?? false,
      ...(spec.needsApproval !== undefined && { needsApproval: approvalRule(spec.name, spec.needsApproval) }),
    },
    ...(schema.prepare && { prepare: () => schema.prepare!() }),
    call,
  }
  argumentChecks.set(tool, check)
  parsedCalls.set(tool, { made: call, parsed })
  return tool
}

function invalidArguments(name: string, issues: SchemaIssue[]): ToolCallError {
  const reasons = issues.map((issue) => `${issue.path || '/'} ${issue.message}`).join('; ')
  return new ToolCallError(`invalid arguments for tool '${name}': ${reasons}`)
}

function parseArguments(name: string, input: string): unknown {
  if (input.trim() === '') return {}
  try {
    return JSON.parse(input) as unknown
  } catch (error) {
    throw new ToolCallError(`arguments for tool '${name}' are not valid JSON (${(error as Error).message})`)
  }
}

/** The tool's result, or a promise of it; `call` is async, so a synchronous throw still rejects. */
function run<S extends SchemaLike>(spec: ToolSpec<S>, args: Infer<S>, context: ToolContext): unknown {
  const timeoutMs = spec.timeoutMs
  if (timeoutMs === undefined) return spec.execute(args, context)
  return withTimeout(spec.name, timeoutMs, context, (signal) => spec.execute(args, { ...context, signal }))
}

function approvalRule(name: string, rule: unknown): ToolApprovalRule {
  if (typeof rule !== 'boolean' && typeof rule !== 'function')
    throw new TypeError(
      `needsApproval of tool '${name}' must be true, false or a function of the arguments, got ${typeof rule}`,
    )
  return rule as ToolApprovalRule
}
