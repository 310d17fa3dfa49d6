package dev.lanes.agentit;

/** What {@link RuntimeSubclassEndpoint} subclasses at run time with Byte Buddy. */
public class Greeter {
  public String greet(String name) {
    return "hello, " + name;
  }
}
