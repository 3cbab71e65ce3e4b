package dev.rwml.env.tau2;

/** A postal address as the desk databases store it. */
public record Address(
        String address1, String address2, String city, String state, String country, String zip) {

    /** Reads an address from tool arguments named like the fields. */
    public static Address from(final Args args) {
        return new Address(
                args.text("address1"),
                args.optionalText("address2"),
                args.text("city"),
                args.text("state"),
                args.text("country"),
                args.text("zip"));
    }

    /** One line, e.g. {@code 12 Oak Street, Suite 3, Austin, TX, USA, 73301}. */
    public String oneLine() {
        final String second = address2.isEmpty() ? "" : address2 + ", ";
        return address1 + ", " + second + city + ", " + state + ", " + country + ", " + zip;
    }
}
