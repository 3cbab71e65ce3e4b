/**
 * The JSON of vLLM's OpenAI-compatible server, as records: completions, chat completions, models,
 * tokenize, LoRA adapter loading and the error object; what {@code rwml serve} answers and what the
 * prediction stage's remote sampler sends. Unknown fields are ignored on read and absent (null)
 * fields are left out on write.
 */
package dev.rwml.worldmodel.serve.openai;
