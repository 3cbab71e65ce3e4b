package dev.rwml.worldmodel.model;

/**
 * The sizes of a decoder that its memory use follows from.
 *
 * @param parameters parameters in all
 * @param layers decoder layers
 * @param hidden width of the residual stream
 * @param heads query heads per layer
 * @param kvHeads key/value heads per layer
 * @param headDim width of one head
 * @param intermediate hidden width of each MLP
 * @param vocab rows of the LM head
 */
public record DecoderShape(
        long parameters,
        int layers,
        int hidden,
        int heads,
        int kvHeads,
        int headDim,
        int intermediate,
        int vocab) {}
