/**
 * One method of an advisor's builder: sets `key` of the options the builder gathers and gives the
 * builder back, so that calls chain (`RetryAdvisor.builder().maxAttempts(5).build()`).
 */
export function setOption<Builder, Options, K extends keyof Options>(
  builder: Builder,
  options: Options,
  key: K,
  value: Options[K],
): Builder {
  options[key] = value
  return builder
}
