"""The truecaser (Lita et al. 2003): trigram LM over case-carrying tokens, sentence-level Viterbi."""
