package dev.lanes.agentit;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * JSON numbers read and written by Jackson 3: doubles such as {@code [1.5, 2.25e3]} into a {@code
 * double[]}, and a record of doubles and a BigDecimal, each answered with what was read and
 * figures computed from it.
 */
@RestController
class NumberEndpoints {

  /** What {@code POST /numbers/doubles} answers. */
  record Doubles(double[] values, int count, double sum, double max) {}

  /** An order: unit price and quantity, and the weights of the parcels. */
  record Order(String item, BigDecimal unitPrice, int quantity, double[] parcelKilograms) {}

  /** What {@code POST /numbers/invoice} answers. */
  record Invoice(Order order, BigDecimal total, double kilograms, double meanKilograms) {}

  @PostMapping("/numbers/doubles")
  Doubles doubles(@RequestBody double[] values) {
    return new Doubles(values, values.length, Arrays.stream(values).sum(),
        Arrays.stream(values).max().orElse(Double.NaN));
  }

  @PostMapping("/numbers/invoice")
  Invoice invoice(@RequestBody Order order) {
    BigDecimal total = order.unitPrice().multiply(BigDecimal.valueOf(order.quantity()))
        .setScale(2, RoundingMode.HALF_EVEN);
    double kilograms = Arrays.stream(order.parcelKilograms()).sum();
    return new Invoice(order, total, kilograms, kilograms / order.parcelKilograms().length);
  }
}
