#include "CI2C.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <stddef.h>
#include <sys/ioctl.h>

int alarmd_i2c_open(const char *path) {
    int fd;
    do {
        fd = open(path, O_RDWR | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

int alarmd_i2c_set_address(int fd, uint8_t address) {
    return ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0 ? -errno : 0;
}

static int smbus_transfer(int fd, uint8_t read_write, uint8_t command, union i2c_smbus_data *data) {
    struct i2c_smbus_ioctl_data request = {
        .read_write = read_write,
        .command = command,
        .size = I2C_SMBUS_BYTE,
        .data = data,
    };
    int result;
    // Sending a PCF8574 the same byte twice leaves its outputs as they were, so a retry is safe.
    do {
        result = ioctl(fd, I2C_SMBUS, &request);
    } while (result < 0 && errno == EINTR);
    return result < 0 ? -errno : 0;
}

int alarmd_i2c_send_byte(int fd, uint8_t byte) {
    // SMBus "send byte" carries its one byte in the command field and has no data block.
    return smbus_transfer(fd, I2C_SMBUS_WRITE, byte, NULL);
}

int alarmd_i2c_receive_byte(int fd) {
    union i2c_smbus_data data = {0};
    int result = smbus_transfer(fd, I2C_SMBUS_READ, 0, &data);
    return result < 0 ? result : data.byte;
}
