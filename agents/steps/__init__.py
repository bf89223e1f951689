"""Language steps: typed functions with an LLM and an offline implementation."""
