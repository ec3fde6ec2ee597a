#include <mosquitto.h>

// libmosquitto (Eclipse Mosquitto's client library, Debian's libmosquitto-dev) as Swift sees it:
// the MQTT connection of the alarm-mqtt bridge, MQTT 3.1.1 over TCP or TLS.
