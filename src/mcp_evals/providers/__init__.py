"""Model providers behind one small interface (``base``), listed once in ``registry``.

anthropic   Anthropic Messages API (prompt caching, Message Batches, free count_tokens)
openai      OpenAI-compatible Chat Completions (OpenAI, gateways, vLLM, Ollama, llama.cpp)
lexical     the lexical baseline: BM25, no network, no key, never gates
replay      answers from an earlier results file, calls nothing

Import the module you need (``mcp_evals.providers.registry`` loads no provider): this package
imports nothing, so choosing a provider costs no HTTP machinery.
"""
