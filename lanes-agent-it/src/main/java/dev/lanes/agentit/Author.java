package dev.lanes.agentit;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

/**
 * An author. A book refers to its author lazily, so Hibernate hands out a Byte Buddy proxy (a
 * subclass of this class made at run time); JSON leaves out the proxy's own properties.
 */
@Entity
@JsonIgnoreProperties({"hibernateLazyInitializer", "handler"})
public class Author {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;
  private String name;
  private int born;

  protected Author() {}

  Author(String name, int born) {
    this.name = name;
    this.born = born;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public int getBorn() {
    return born;
  }
}
