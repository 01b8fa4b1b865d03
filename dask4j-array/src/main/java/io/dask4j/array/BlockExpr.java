package io.dask4j.array;

import java.io.Serializable;

/**
 * A fused elementwise expression over the blocks of one or more materialized arrays (the "slots").
 * How each slot's block is read — which block, at which offset, transposed or not — is per output
 * block and travels next to the expression in the task's geometry, so one expression serves every
 * block of an array. Transposes and slices thereby cost nothing until a block is evaluated, tile by
 * tile ({@link TileEvaluator}). Records: they travel to workers inside task arguments.
 */
sealed interface BlockExpr extends Serializable {

    /** The value of slot {@code slot}'s block. */
    record Leaf(int slot) implements BlockExpr {
    }

    record Unary(UnaryOp op, BlockExpr a) implements BlockExpr {
    }

    record Binary(BinaryOp op, BlockExpr a, BlockExpr b) implements BlockExpr {
    }

    /** {@code a op value}, or {@code value op a} when {@code scalarFirst}. */
    record Scalar(BinaryOp op, BlockExpr a, double value, boolean scalarFirst) implements BlockExpr {
    }

    /** This expression with every slot number raised by {@code by} (for joining two expressions). */
    default BlockExpr shift(int by) {
        return switch (this) {
            case Leaf l -> new Leaf(l.slot() + by);
            case Unary u -> new Unary(u.op(), u.a().shift(by));
            case Binary b -> new Binary(b.op(), b.a().shift(by), b.b().shift(by));
            case Scalar s -> new Scalar(s.op(), s.a().shift(by), s.value(), s.scalarFirst());
        };
    }

    /** How many tile buffers evaluating this expression needs at once. */
    default int buffers() {
        return switch (this) {
            case Leaf l -> 1;
            case Unary u -> u.a().buffers();
            case Binary b -> Math.max(b.a().buffers(), 1 + b.b().buffers());
            case Scalar s -> s.a().buffers();
        };
    }
}
