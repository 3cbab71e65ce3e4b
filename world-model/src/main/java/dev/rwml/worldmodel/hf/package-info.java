/**
 * Hugging Face checkpoints: config, memory-mapped safetensors, the Qwen2/Llama decoder, tokenizer,
 * chat template and LoRA.
 */
package dev.rwml.worldmodel.hf;
