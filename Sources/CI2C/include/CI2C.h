// I2C through the kernel's i2c-dev interface: ioctl is variadic, so Swift cannot call it, and the
// SMBus structures live in linux/i2c-dev.h and linux/i2c.h, which Swift's Glibc module lacks.
#ifndef ALARMD_CI2C_H
#define ALARMD_CI2C_H

#include <stdint.h>

/// Opens an I2C bus device such as "/dev/i2c-1" read-write and close-on-exec. Returns the
/// descriptor, or -errno.
int alarmd_i2c_open(const char *path);

/// Sets the 7-bit address later transfers on fd go to (ioctl I2C_SLAVE, not I2C_SLAVE_FORCE: an
/// address a kernel driver has claimed fails with -EBUSY). Returns 0 or -errno.
int alarmd_i2c_set_address(int fd, uint8_t address);

/// SMBus "send byte" (start, address+W, byte, stop) to the current address: all a PCF8574 needs
/// to set its eight outputs, and what the kernel's i2c-stub accepts. Retries EINTR. Returns 0 or
/// -errno (-ENXIO or -EREMOTEIO when nothing acknowledges, depending on the adapter driver).
int alarmd_i2c_send_byte(int fd, uint8_t byte);

/// SMBus "receive byte" (start, address+R, byte, stop) from the current address: a PCF8574 answers
/// with the levels of its pins and changes nothing. Retries EINTR. Returns the byte (0...255) or
/// -errno.
int alarmd_i2c_receive_byte(int fd);

#endif
