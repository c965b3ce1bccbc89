/// \file
/// The zoo's Fashion-MNIST members: small networks of the zoo families (ResNet, MobileNetV2,
/// MobileNetV3, SqueezeNet) on 1 x 1 x 32 x 32 inputs with 10 classes, built from the same
/// blocks (zoo_blocks.h). `layerwise train` trains them and configs/models/ holds the
/// weights, so accuracy on the device is measured on real data. build_zoo_model() finds
/// them by name too; they are not in zoo_models() (that list is the ImageNet-shaped zoo).
#pragma once
#include <vector>

#include "libs/zoo/zoo.h"

namespace lw {

/// Input shape of every Fashion-MNIST member (the batch comes from ZooOptions::input.n).
constexpr int kFmnistChannels = 1, kFmnistSide = 32, kFmnistClasses = 10;

/// fmnist_resnet, fmnist_mobilenetv2, fmnist_mobilenetv3, fmnist_squeezenet. Builders use
/// ZooOptions::width and ::input.n only: the data set fixes the input and class count.
const std::vector<ZooEntry>& fmnist_models();

}  // namespace lw
